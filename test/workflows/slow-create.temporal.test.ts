/**
 * The slow-create cases (issue 23): the sandbox holds a create longer than the activity's whole
 * start-to-close timeout (a minute for changes) before acting on it, long after the worker's client
 * gave up. A retry that looked up before the held request landed would find nothing and create a
 * second record. Each case ends with exactly one record at the service and the workflow going on:
 * one onramp flow for a journey, one payment for a payout. A real worker on the shared dev server,
 * the sandbox over loopback.
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PayoutClient } from '../../client/payouts';
import { payoutStateQuery, type PayoutState } from '../../workflows/payout/messages';
import { registerTestExits, startJourneyHarness, TEST_ONRAMP, type JourneyHarness } from '../support/journey-harness';

/** Longer than the one-minute start-to-close timeout of a change (workflows/common/calls.ts). */
const HOLD_MS = 65_000;
/** The settle delay: the service is assumed to act on a request within this long of receiving it. */
const SETTLE_MS = HOLD_MS + 5_000;
/** The hold, the settle delay, and the rest of the way. */
const CASE_TIMEOUT_MS = 200_000;

let h: JourneyHarness;
let payouts: PayoutClient;
let bankAccountId: string;

beforeAll(async () => {
  h = await startJourneyHarness({}, { outcomeUnknownRetryDelayMs: SETTLE_MS });
  payouts = new PayoutClient(h.client, h.taskQueue);
  const { id: customerId } = await h.ramp.customers.create({
    externalId: `payee-${randomUUID()}`,
    realName: 'Ada Lovelace',
    email: 'ada@example.com',
  });
  await h.control.approveCustomer(customerId!);
  ({ id: bankAccountId } = (await h.ramp.bankAccounts.add({
    customerId: customerId!,
    currency: 'GBP',
    bankName: 'Barclays',
    accountNo: '20000012345678',
    swift: 'BARCGB22',
    beneficiaryName: 'Ada Lovelace',
  })) as { id: string });
});
afterAll(async () => {
  await h?.close();
});

/** Waits until a request the sandbox began holding at `heldFrom` has been handled: only then may a second record show. */
async function afterTheHold(heldFrom: number): Promise<void> {
  const wait = heldFrom + HOLD_MS + 2_000 - Date.now();
  if (wait > 0) await new Promise((wake) => setTimeout(wake, wait));
}

async function payoutUntil(handle: WorkflowHandle, accept: (state: PayoutState) => boolean): Promise<PayoutState> {
  const deadline = Date.now() + CASE_TIMEOUT_MS;
  for (;;) {
    const state = await handle.query(payoutStateQuery);
    if (accept(state)) return state;
    if (Date.now() > deadline)
      throw new Error(`the payout never reached the expected state; last:\n${JSON.stringify(state, null, 2)}`);
    await new Promise((wake) => setTimeout(wake, 200));
  }
}

/** The ONRAMP flows at the service from any of the customer's virtual accounts. */
async function onrampFlowsOf(customerId: string): Promise<string[]> {
  const accounts = new Set<string>();
  for await (const account of h.ramp.virtualAccounts.iterate({ customerId, pageSize: 100 })) accounts.add(account.id);
  const flows: string[] = [];
  for await (const flow of h.ramp.autorampFlows.iterate({ type: 'ONRAMP', pageSize: 100 }))
    if (accounts.has(flow.from)) flows.push(flow.id);
  return flows;
}

// The two cases wait out the same hold, so they run side by side. Faults are per path: each case has its own.
describe.concurrent('a create the service holds longer than the activity timeout', () => {
  it(
    'makes one onramp flow, and the journey goes on',
    async () => {
      const handle = await h.startJourney({ onramp: TEST_ONRAMP });
      const kyc = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC');
      const customerId = kyc.customer.id!;
      await registerTestExits(h.control, customerId);
      await h.control.injectFault({ path: '/autoramp-flow/onramp', kind: 'DELAY', delayMs: HOLD_MS });
      const heldFrom = Date.now();
      await h.control.approveCustomer(customerId);

      const accounts = await h.waitForJourney(
        handle,
        (s) => s.stage === 'AWAITING_ACCOUNTS' && !!s.onramp?.virtualAccount,
        CASE_TIMEOUT_MS,
      );
      expect(await h.control.pendingFaults()).not.toContainEqual(
        expect.objectContaining({ path: '/autoramp-flow/onramp' }),
      );
      expect(await onrampFlowsOf(customerId)).toEqual([accounts.onramp!.flowId]);

      await h.control.approveVirtualAccount(accounts.onramp!.virtualAccount!.id);
      await h.waitForJourney(handle, (s) => s.stage === 'ACTIVE');
      await afterTheHold(heldFrom);
      expect(await onrampFlowsOf(customerId)).toEqual([accounts.onramp!.flowId]);
    },
    CASE_TIMEOUT_MS + 30_000,
  );

  it(
    'makes one payment, and the payout settles',
    async () => {
      // Enough for two payments: a second create would not be refused for want of balance.
      await h.control.creditBalance({ currency: 'USDT', amount: '6' });
      await h.control.injectFault({ path: '/payment/create', kind: 'DELAY', delayMs: HOLD_MS });
      const heldFrom = Date.now();
      const reference = `po-${randomUUID()}`;
      const handle = await payouts.start({
        reference,
        bankAccountId,
        deductCurrency: 'USDT',
        deductAmount: '3',
        timings: { pollIntervalSeconds: 1, settlementDeadlineSeconds: 600 },
      });

      const waiting = await payoutUntil(handle, (state) => state.stage === 'AWAITING_SETTLEMENT');
      expect(await h.control.pendingFaults()).not.toContainEqual(expect.objectContaining({ path: '/payment/create' }));
      const payments = async () => (await h.ramp.payments.list({ reference })).list.map((payment) => payment.id);
      expect(await payments()).toEqual([waiting.paymentId]);

      await h.control.settlePayment(waiting.paymentId!);
      expect((await handle.result()).stage).toBe('SETTLED');
      await afterTheHold(heldFrom);
      expect(await payments()).toEqual([waiting.paymentId]);
    },
    CASE_TIMEOUT_MS + 30_000,
  );
});
