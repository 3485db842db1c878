/**
 * The customer journey and its deposits on the real dev server against the sandbox. No webhook
 * receiver runs here, so every step the journey sees comes through its polling fallback: an
 * approval webhook that never arrives is found by the poll.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shownDeposit } from '../../workflows/journey/board';
import {
  cancelUpdate,
  closeCustomerUpdate,
  retryUpdate,
  type DepositSummary,
  type JourneyState,
} from '../../workflows/common/messages';
import {
  registerTestExits,
  startJourneyHarness,
  TEST_AUD_SOURCE as SOURCE,
  TEST_OFFRAMP as OFFRAMP,
  TEST_ONRAMP as ONRAMP,
  TEST_WALLET as WALLET,
  type JourneyHarness,
} from '../support/journey-harness';

let h: JourneyHarness;
beforeAll(async () => {
  h = await startJourneyHarness();
});
afterAll(async () => {
  await h.close();
});

const registerExits = (customerId: string) => registerTestExits(h.control, customerId);

const depositOf = (state: JourneyState, id: string): DepositSummary | undefined => shownDeposit(state.deposits, id);

async function customersWithExternalId(externalId: string): Promise<number> {
  let count = 0;
  for await (const customer of h.ramp.customers.iterate({ pageSize: 100 }))
    if (customer.externalId === externalId) count += 1;
  return count;
}

describe('the customer journey', () => {
  it('carries an AUD onramp and a USDT offramp from creation to completed payouts', async () => {
    const handle = await h.startJourney({ onramp: ONRAMP, offramp: OFFRAMP });
    let state = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC');
    expect(state.customer.kycLink).toMatch(/^https?:\/\//);
    const customerId = state.customer.id!;

    // The exits are registered after KYC starts; the journey waits for them.
    await h.control.approveCustomer(customerId);
    state = await h.waitForJourney(handle, (s) => s.stage === 'SETTING_UP_RAMPS' && s.waitingFor.includes('register'));
    await registerExits(customerId);

    state = await h.waitForJourney(
      handle,
      (s) => s.stage === 'AWAITING_ACCOUNTS' && !!s.onramp?.virtualAccount && !!s.offramp?.depositAddress,
    );
    const virtualAccountId = state.onramp!.virtualAccount!.id;
    const depositAddressId = state.offramp!.depositAddress!.id;
    await h.control.approveVirtualAccount(virtualAccountId);
    await h.control.approveDepositAddress(depositAddressId);

    state = await h.waitForJourney(handle, (s) => s.stage === 'ACTIVE');
    expect(state.onramp).toMatchObject({ whitelisted: true, virtualAccount: { status: 'VERIFIED' } });
    // Operators find it by stage, partner user id and service customer id.
    expect(
      await h.listWorkflowIds(
        `RampStage = 'ACTIVE' AND RampExternalId = '${state.externalId}' AND RampCustomerId = '${customerId}'`,
      ),
    ).toEqual([handle.workflowId]);
    expect(state.onramp!.virtualAccount!.accountNumber).toBeTruthy();
    expect(state.offramp!.depositAddress!.address).toBeTruthy();

    // Onramp: AUD arrives from the whitelisted source, is confirmed, traded and settled.
    const fiat = await h.control.simulateFiatDeposit({
      virtualAccountId,
      amount: '100.00',
      currency: 'AUD',
      sender: SOURCE,
    });
    await h.reconcile(); // no webhooks here: reconciliation starts the deposit's workflow
    await h.waitForJourney(handle, (s) => depositOf(s, fiat.id)?.stage === 'RECEIVED');
    await h.control.confirmDeposit(fiat.id);
    await h.control.settleTrade((await h.waitForDeposit(fiat.id, (s) => s.tradeId !== undefined)).tradeId!);
    state = await h.waitForJourney(handle, (s) => depositOf(s, fiat.id)?.stage === 'COMPLETED');
    expect(depositOf(state, fiat.id)).toMatchObject({ kind: 'ONRAMP', amount: '100.00', currency: 'AUD' });

    // Offramp: USDT arrives at the deposit address, is traded, and paid out to the bank account.
    const crypto = await h.control.simulateCryptoDeposit({
      depositAddressId,
      amount: '50.00',
      currency: 'USDT',
      sender: { address: '0x0000000000000000000000000000000000000001', network: 'ETH' },
    });
    await h.reconcile();
    await h.waitForJourney(handle, (s) => depositOf(s, crypto.id) !== undefined);
    await h.control.confirmDeposit(crypto.id);
    await h.control.settleTrade((await h.waitForDeposit(crypto.id, (s) => s.tradeId !== undefined)).tradeId!);
    await h.control.settlePayment((await h.waitForDeposit(crypto.id, (s) => s.paymentId !== undefined)).paymentId!);
    state = await h.waitForJourney(handle, (s) => depositOf(s, crypto.id)?.stage === 'COMPLETED');
    expect(depositOf(state, crypto.id)).toMatchObject({ kind: 'OFFRAMP', currency: 'USDT' });

    // Nothing was made twice.
    expect(await customersWithExternalId(state.externalId)).toBe(1);
    const flows = [];
    for await (const flow of h.ramp.autorampFlows.iterate({ pageSize: 100 })) {
      if (flow.from === virtualAccountId || flow.from === depositAddressId) flows.push(flow.type);
    }
    expect(flows.sort()).toEqual(['OFFRAMP', 'ONRAMP']);

    await handle.executeUpdate(closeCustomerUpdate, { args: [{ reason: 'test over' }] });
    expect(await handle.result()).toEqual({ stage: 'CLOSED', reason: 'test over' });
  });

  it('ends in REJECTED when KYC is rejected', async () => {
    const handle = await h.startJourney({ offramp: OFFRAMP });
    const state = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC');
    await h.control.rejectCustomer(state.customer.id!);
    expect(await handle.result()).toEqual({ stage: 'REJECTED', reason: "the service rejected the customer's KYC" });
  });

  it('parks at a deadline and resumes on an operator retry', async () => {
    // Polls an hour apart: only the operator's retry (which asks the service at once) moves it on.
    const handle = await h.startJourney({ timings: { kycDeadlineSeconds: 2, pollIntervalSeconds: 3600 } });
    let state = await h.waitForJourney(handle, (s) => s.stage === 'NEEDS_ATTENTION');
    expect(state.attention).toMatchObject({ stage: 'AWAITING_KYC', errorType: 'Deadline' });

    await h.control.approveCustomer(state.customer.id!);
    await handle.executeUpdate(retryUpdate, { args: [{}] });
    state = await h.waitForJourney(handle, (s) => s.stage === 'ACTIVE');
    expect(state.attention).toBeUndefined();
    // An update that does not apply is refused by its validator.
    const refused = await handle.executeUpdate(retryUpdate, { args: [{}] }).catch((error: unknown) => error);
    expect((refused as Error).cause).toMatchObject({ message: expect.stringMatching(/not in NEEDS_ATTENTION/) });
    await handle.executeUpdate(closeCustomerUpdate, { args: [{}] });
    expect((await handle.result()).stage).toBe('CLOSED');
  });

  it('parks a refused autoramp creation and retries it with corrected input', async () => {
    // The sandbox refuses an onramp in a currency it does not support.
    const handle = await h.startJourney({
      onramp: { currency: 'XXX', cryptoAddress: { address: WALLET, network: 'ETH' } },
    });
    let state = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC');
    await registerExits(state.customer.id!);
    await h.control.approveCustomer(state.customer.id!);
    state = await h.waitForJourney(handle, (s) => s.stage === 'NEEDS_ATTENTION');
    expect(state.attention).toMatchObject({ stage: 'SETTING_UP_RAMPS', errorType: 'InvalidParameters' });
    expect(state.attention!.reason).toMatch(/^creating the onramp: /);

    // A retry sent past the client library (as another SDK or the Temporal CLI would) meets the contract:
    // a corrected input it does not allow is refused, and the journey stays parked.
    const refusal = (message: RegExp) => ({ cause: { message: expect.stringMatching(message) } });
    await expect(
      handle.executeUpdate(retryUpdate, {
        args: [{ correctedInput: { onramp: { currency: 'aud', cryptoAddress: { address: WALLET } } } }],
      }),
    ).rejects.toMatchObject(
      refusal(/^invalid retry request: correctedInput\.onramp\.currency: a fiat currency code such as AUD/),
    );
    await expect(
      handle.executeUpdate(retryUpdate, { args: [{ correctedInput: { onRamp: {} } } as never] }),
    ).rejects.toMatchObject(refusal(/correctedInput\.onRamp: not a field of this input/));
    expect((await h.waitForJourney(handle, (s) => s.stage === 'NEEDS_ATTENTION')).attention).toMatchObject({
      stage: 'SETTING_UP_RAMPS',
    });

    await handle.executeUpdate(retryUpdate, {
      args: [{ correctedInput: { onramp: { currency: 'AUD', cryptoAddress: { address: WALLET, network: 'ETH' } } } }],
    });
    state = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_ACCOUNTS' && !!s.onramp?.virtualAccount);
    expect(state.onramp).toMatchObject({ currency: 'AUD' });
    await h.control.approveVirtualAccount(state.onramp!.virtualAccount!.id);
    await h.waitForJourney(handle, (s) => s.stage === 'ACTIVE');
    await handle.executeUpdate(closeCustomerUpdate, { args: [{}] });
    await handle.result();
  });

  it('waits out a service failing while it looks for the exit accounts, instead of parking', async () => {
    const handle = await h.startJourney({ onramp: ONRAMP, offramp: OFFRAMP });
    const state = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC');
    await registerExits(state.customer.id!);
    // More failures than one look's attempts (3 activity attempts of 3 HTTP attempts each).
    await h.control.injectFault({ path: '/crypto-address/list', kind: 'HTTP_5XX', count: 12 });
    await h.control.approveCustomer(state.customer.id!);
    const accounts = await h.waitForJourney(
      handle,
      (s) => s.stage === 'AWAITING_ACCOUNTS' || s.stage === 'NEEDS_ATTENTION',
    );
    expect(accounts.attention).toBeUndefined();
    expect(accounts.onramp?.cryptoAddressId).toBeDefined();
    expect(await h.control.pendingFaults()).toEqual([]);
    await handle.terminate('test over');
  });

  it('ends in CLOSED when an operator cancels a parked journey', async () => {
    const handle = await h.startJourney({ timings: { kycDeadlineSeconds: 1 } });
    await h.waitForJourney(handle, (s) => s.stage === 'NEEDS_ATTENTION');
    await handle.executeUpdate(cancelUpdate, { args: [{ reason: 'customer gave up' }] });
    expect(await handle.result()).toEqual({ stage: 'CLOSED', reason: 'customer gave up' });
  });

  it('ends in CLOSED when the service deletes the customer', async () => {
    const handle = await h.startJourney({});
    const state = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC');
    await h.control.deleteCustomer(state.customer.id!);
    expect(await handle.result()).toEqual({ stage: 'CLOSED', reason: 'the service deleted the customer' });
  });

  it("looks the customer up before creating it: a second journey run finds the first one's customer", async () => {
    const first = await h.startJourney({});
    const state = await h.waitForJourney(first, (s) => s.stage === 'AWAITING_KYC');
    await first.terminate('simulating a lost journey');
    const second = await h.startJourney({ customer: { externalId: state.externalId } });
    const again = await h.waitForJourney(second, (s) => s.stage === 'AWAITING_KYC');
    expect(again.customer.id).toBe(state.customer.id);
    expect(await customersWithExternalId(state.externalId)).toBe(1);
    await second.terminate('test over');
  });
});
