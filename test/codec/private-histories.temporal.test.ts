/**
 * A whole journey (AUD onramp with its whitelisted source, USDT offramp, a deposit each way, one
 * needing a document), moved by the service's webhooks and by polls, then every history of the
 * namespace read raw, the way a reader of Temporal's database, its backups or a Web UI without the
 * codec server would: none holds the customer's name, email, wallet address, account numbers, kycLink
 * or the document's bytes. Workflow IDs and search attributes, which the codec does not reach, hold
 * only ids and stages (docs/deploying/customer-data-and-keys.md).
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerWebhooks } from '../../webhooks/registration';
import { shownDeposit } from '../../workflows/journey/board';
import { depositWorkflowId, type JourneyState } from '../../workflows/common/messages';
import { type JourneyHarness, startJourneyHarness } from '../support/journey-harness';
import { rawHistoriesText } from '../support/raw-history';
import { temporalAddress } from '../support/temporal';
import { startReceiver, type TestReceiver } from '../webhooks/support/receiver';

const digits = (count: number) => Array.from({ length: count }, () => randomInt(10)).join('');
// Values no other test uses, long enough that no id or timestamp contains them by chance (the BSB's six
// digits are not: the field-name check below covers it).
const CUSTOMER = {
  realName: `Zelda Quixote-${randomBytes(4).toString('hex')}`,
  email: `zelda.${randomUUID()}@example.com`,
};
const WALLET = `0x${randomBytes(20).toString('hex')}`;
const AUD_SOURCE = { bsbNumber: digits(6), accountNumber: digits(10), accountName: CUSTOMER.realName };
const OFFRAMP_ACCOUNT_NO = digits(14);
const DOCUMENT = Buffer.from(`%PDF-1.4 payslip of ${CUSTOMER.realName} ${randomUUID()}`);
/** JSON field names of personal data: in a sealed payload not even these can be read. */
const PERSONAL_FIELDS = [
  'realName',
  'email',
  'kycLink',
  'bsbNumber',
  'accountNo',
  'accountNumber',
  'accountName',
  'cryptoAddress',
];

let h: JourneyHarness;
let receiver: TestReceiver;
let raw: Connection;

beforeAll(async () => {
  h = await startJourneyHarness({ deliveryTickSeconds: 1 });
  receiver = await startReceiver({ client: h.client, taskQueue: h.taskQueue });
  await registerWebhooks(h.ramp, { callbackUrl: receiver.webhookUrl, rampBaseUrl: h.sandbox.url });
  raw = await Connection.connect({ address: temporalAddress() });
});
afterAll(async () => {
  await raw?.close();
  await receiver?.close();
  await h?.close();
});

const depositOf = (state: JourneyState, id: string) => shownDeposit(state.deposits, id);

describe('customer data in Temporal', () => {
  it('appears in no history of the namespace, read without the codec', async () => {
    const externalId = `private-${randomUUID()}`;
    const handle = await h.startJourney({
      customer: { externalId, ...CUSTOMER },
      onramp: { currency: 'AUD', cryptoAddress: { address: WALLET, network: 'ETH' }, audSourceAccount: AUD_SOURCE },
      offramp: { currency: 'USDT', network: 'ETH', bankAccount: { accountNo: OFFRAMP_ACCOUNT_NO } },
    });
    let state = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC' && !!s.customer.kycLink);
    const kycLink = state.customer.kycLink!;
    const customerId = state.customer.id!;
    // The partner registers the customer's exits: the same wallet and bank account as the ramps name.
    await h.control.registerCryptoAddress({ customerId, currency: 'USDT', network: 'ETH', address: WALLET });
    await h.control.registerBankAccount({
      customerId,
      currency: 'AUD',
      bankName: 'Test Bank',
      accountNo: OFFRAMP_ACCOUNT_NO,
      swift: 'TESTAU2S',
    });
    await h.control.approveCustomer(customerId);
    state = await h.waitForJourney(
      handle,
      (s) => s.stage === 'AWAITING_ACCOUNTS' && !!s.onramp?.virtualAccount && !!s.offramp?.depositAddress,
    );
    await h.control.approveVirtualAccount(state.onramp!.virtualAccount!.id);
    await h.control.approveDepositAddress(state.offramp!.depositAddress!.id);
    state = await h.waitForJourney(handle, (s) => s.stage === 'ACTIVE');
    expect(state.onramp).toMatchObject({ whitelisted: true });

    // Onramp: the service wants a document before it confirms; the operator submits one.
    const fiat = await h.control.simulateFiatDeposit({
      virtualAccountId: state.onramp!.virtualAccount!.id,
      amount: '100.00',
      currency: 'AUD',
      sender: AUD_SOURCE,
    });
    await h.waitForJourney(handle, (s) => depositOf(s, fiat.id) !== undefined);
    await h.control.requireDepositAction(fiat.id);
    await h.waitForJourney(handle, (s) => depositOf(s, fiat.id)?.stage === 'ACTION_REQUIRED');
    const { createRampflowClient } = await import('../../client');
    const { testPayloadKeys } = await import('../support/temporal');
    const rampflow = await createRampflowClient({
      address: temporalAddress(),
      taskQueue: h.taskQueue,
      payloadKeys: testPayloadKeys(),
    });
    try {
      await rampflow.submitAttachment(fiat.id, {
        fileName: `payslip-${CUSTOMER.realName}.pdf`,
        contentType: 'application/pdf',
        content: DOCUMENT,
      });
    } finally {
      await rampflow.close();
    }
    await h.control.confirmDeposit(fiat.id);
    await h.control.settleTrade((await h.waitForDeposit(fiat.id, (s) => s.tradeId !== undefined)).tradeId!);
    await h.waitForJourney(handle, (s) => depositOf(s, fiat.id)?.stage === 'COMPLETED');

    // Offramp: USDT in, paid out to the customer's bank account.
    const crypto = await h.control.simulateCryptoDeposit({
      depositAddressId: state.offramp!.depositAddress!.id,
      amount: '50.00',
      currency: 'USDT',
      sender: { address: WALLET, network: 'ETH' },
    });
    await h.waitForJourney(handle, (s) => depositOf(s, crypto.id) !== undefined);
    await h.control.confirmDeposit(crypto.id);
    await h.control.settleTrade((await h.waitForDeposit(crypto.id, (s) => s.tradeId !== undefined)).tradeId!);
    await h.control.settlePayment((await h.waitForDeposit(crypto.id, (s) => s.paymentId !== undefined)).paymentId!);
    await h.waitForJourney(handle, (s) => depositOf(s, crypto.id)?.stage === 'COMPLETED');
    await handle.terminate('test over');

    const rawClient = new Client({ connection: raw });
    const histories = await rawHistoriesText(rawClient);
    const ours = [...histories.keys()].filter((key) =>
      [handle.workflowId, depositWorkflowId(fiat.id), depositWorkflowId(crypto.id)].some((id) =>
        key.startsWith(`${id}/`),
      ),
    );
    // The journey, both deposits, and the events that woke them are all among what was read.
    expect(ours.length).toBeGreaterThanOrEqual(3);
    expect([...histories.keys()].some((key) => key.startsWith('event/'))).toBe(true);

    const secrets = {
      name: CUSTOMER.realName,
      email: CUSTOMER.email,
      wallet: WALLET,
      audAccountNumber: AUD_SOURCE.accountNumber,
      offrampAccountNo: OFFRAMP_ACCOUNT_NO,
      kycLink,
      documentBytes: DOCUMENT.toString('latin1'),
      documentBase64: DOCUMENT.toString('base64'),
    };
    const leaks = [...histories].flatMap(([key, text]) =>
      Object.entries(secrets)
        .filter(([, value]) => text.includes(value))
        .map(([what]) => `${what} in ${key}`),
    );
    expect(leaks).toEqual([]);
    const fieldLeaks = ours.flatMap((key) =>
      PERSONAL_FIELDS.filter((field) => histories.get(key)!.includes(field)).map((field) => `${field} in ${key}`),
    );
    expect(fieldLeaks).toEqual([]);
  });
});
