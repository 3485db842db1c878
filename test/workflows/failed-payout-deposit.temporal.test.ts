/**
 * An offramp deposit whose payout the service fails: the service announces no failed payment, so
 * only the deposit's poll finds it. The deposit parks at once with the payment and its status
 * (PaymentFailed), instead of polling a payment that will never settle until its step deadline, and
 * the journey shows it parked. A retry reads the payment again and parks again while it stays failed.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerWebhooks } from '../../webhooks/registration';
import { shownDeposit } from '../../workflows/deposit-board';
import type { depositLifecycle } from '../../workflows/deposit';
import { depositWorkflowId } from '../../workflows/ids';
import { depositStateQuery, retryUpdate } from '../../workflows/messages';
import { startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { startReceiver, type TestReceiver } from '../webhooks/support/receiver';

const BANK_ACCOUNT_NO = '987654321';
const OFFRAMP = { currency: 'USDT', network: 'ETH', bankAccount: { accountNo: BANK_ACCOUNT_NO } };
const EVENTS_ONLY = { pollIntervalSeconds: 3600, kycDeadlineSeconds: 86_400, accountsDeadlineSeconds: 86_400 };
// Polls every few seconds; a step's deadline a day away: a park before it is the failed payment's.
const POLLING_DEPOSITS = { pollIntervalSeconds: 2, stepDeadlineSeconds: 86_400, notFoundGraceSeconds: 1 };
const SENDER = { address: '0x0000000000000000000000000000000000000001', network: 'ETH' };

let h: JourneyHarness;
let receiver: TestReceiver;
let journey: WorkflowHandle;
let depositAddressId: string;

beforeAll(async () => {
  h = await startJourneyHarness({ clock: { frozen: true } }, { depositTimings: POLLING_DEPOSITS });
  receiver = await startReceiver({ client: h.client, taskQueue: h.taskQueue, depositTimings: POLLING_DEPOSITS });
  await registerWebhooks(h.ramp, { callbackUrl: receiver.webhookUrl, rampBaseUrl: h.sandbox.url });
  journey = await h.startJourney({ offramp: OFFRAMP, timings: EVENTS_ONLY });
  const kyc = await h.waitForJourney(journey, (s) => s.stage === 'AWAITING_KYC');
  await h.control.registerBankAccount({ customerId: kyc.customer.id!, currency: 'AUD', bankName: 'Test Bank', accountNo: BANK_ACCOUNT_NO, swift: 'TESTAU2S' });
  await h.control.approveCustomer(kyc.customer.id!);
  await deliver();
  const accounts = await h.waitForJourney(journey, (s) => s.stage === 'AWAITING_ACCOUNTS' && !!s.offramp?.depositAddress);
  depositAddressId = accounts.offramp!.depositAddress!.id;
  await h.control.approveDepositAddress(depositAddressId);
  await deliver();
  await h.waitForJourney(journey, (s) => s.stage === 'ACTIVE');
});
afterAll(async () => {
  await receiver?.close();
  await h?.close();
});

const deliver = () => h.sandbox.clock.advance(60);

async function tradeOf(depositId: string): Promise<{ id: string; paymentId?: string }> {
  for await (const item of h.ramp.trades.iterate({ pageSize: 100 })) {
    const trade = await h.ramp.trades.detail({ id: item.id });
    if (trade.deposit.id === depositId) return { id: trade.id, ...(typeof trade.paymentId === 'string' ? { paymentId: trade.paymentId } : {}) };
  }
  throw new Error(`no trade for deposit ${depositId}`);
}

describe('an offramp deposit whose payout the service fails', () => {
  it('parks PaymentFailed, naming the payment and its status, long before its step deadline; a retry parks it again', async () => {
    const deposit = await h.control.simulateCryptoDeposit({ depositAddressId, amount: '14.000000', currency: 'USDT', sender: SENDER });
    await h.control.confirmDeposit(deposit.id);
    const depositId = deposit.id;
    await deliver();
    await h.waitForDeposit(depositId, (s) => s.stage === 'TRADE_CREATED');
    const trade = await tradeOf(depositId);
    await h.control.settleTrade(trade.id);
    await deliver();
    await h.waitForDeposit(depositId, (s) => s.stage === 'TRADE_SETTLED');
    const { paymentId } = await tradeOf(depositId);
    await h.control.failPayment(paymentId!, 'beneficiary account closed');

    const handle = h.client.workflow.getHandle<typeof depositLifecycle>(depositWorkflowId(depositId));
    const parked = await h.waitForDeposit(depositId, (s) => s.stage === 'NEEDS_ATTENTION');
    expect(parked.attention).toMatchObject({ stage: 'TRADE_SETTLED', errorType: 'PaymentFailed', reason: `payment ${paymentId} ended FAILED` });
    const state = await h.waitForJourney(journey, (s) => shownDeposit(s.deposits, depositId)?.stage === 'NEEDS_ATTENTION');
    expect(state.deposits.completedTotals.USDT).toBeUndefined();

    await handle.executeUpdate(retryUpdate, { args: [{}] });
    const again = await h.waitForDeposit(depositId, (s) => s.stage === 'NEEDS_ATTENTION' && s.attention?.since !== parked.attention?.since);
    expect(again.attention).toMatchObject({ errorType: 'PaymentFailed' });
    expect((await handle.query(depositStateQuery)).stage).toBe('NEEDS_ATTENTION');
  });
});
