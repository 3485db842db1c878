/**
 * A payout follows its payment to the service's last word ("Nothing wedges"), on the real dev server
 * against the sandbox: parked at its settlement deadline it still settles when the payment does
 * (told by PAYMENT_SETTLED, or by its own late look); an operator's cancel is refused while a payment
 * exists that did not fail; a payment the service fails ends it FAILED with `payout.failed` naming
 * the payment and the service's reason; and a FAILED answer to a read after the payment was created
 * finds the payment instead of parking.
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PayoutClient } from '../../client/payouts';
import { payoutStateQuery, type PayoutState, type PayoutTimings } from '../../workflows/payout/messages';
import { startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { startPartnerEvents, type PartnerEventsUnderTest } from '../support/partner-event-wiring';
import { dataConverterFromEnv } from '../../codec';
import { WORKFLOW_BUNDLE_PATHS } from '../../workers/worker';
import { startReceiver } from '../webhooks/support/receiver';

let h: JourneyHarness;
let events: PartnerEventsUnderTest;
let payouts: PayoutClient;
let bankAccountId: string;

/** Polls an hour apart and a deadline of two seconds: the payout parks before any poll. */
const PARKS_AT_ONCE: PayoutTimings = { pollIntervalSeconds: 3600, settlementDeadlineSeconds: 2 };

beforeAll(async () => {
  events = await startPartnerEvents();
  h = await startJourneyHarness({}, { outcomeUnknownRetryDelayMs: 1_000, partnerEvents: events.wiring });
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
}, 120_000);

/** Every payout a test ran, replayed with this code at the end: the patched branches (activities in a cancel's update, reads while parked) replay as they ran. */
const ran: WorkflowHandle[] = [];

afterAll(async () => {
  try {
    const histories = await Promise.all(
      ran.map(async (handle) => ({ workflowId: handle.workflowId, history: await handle.fetchHistory() })),
    );
    for await (const result of Worker.runReplayHistories(
      { ...WORKFLOW_BUNDLE_PATHS, dataConverter: dataConverterFromEnv(), replayName: 'payout-follows-payment' },
      histories,
    )) {
      expect(result.error, result.workflowId).toBeUndefined();
    }
  } finally {
    await h?.close();
    await events?.close();
  }
}, 120_000);

async function until(
  handle: WorkflowHandle,
  accept: (state: PayoutState) => boolean,
  timeoutMs = 60_000,
): Promise<PayoutState> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await handle.query(payoutStateQuery);
    if (accept(state)) return state;
    if (Date.now() > deadline)
      throw new Error(`the payout never reached the expected state; last:\n${JSON.stringify(state, null, 2)}`);
    await new Promise((wake) => setTimeout(wake, 100));
  }
}

/** What the partner heard about the payout, in order. */
async function partnerEventsOf(reference: string) {
  return (await events.store.stream(`payout/${reference}`, 0, 10)).map(({ type, data }) => ({ type, data }));
}

async function startPayout(amount: string, timings: PayoutTimings) {
  await h.control.creditBalance({ currency: 'USDT', amount });
  const reference = `po-${randomUUID()}`;
  const handle = await payouts.start({
    reference,
    bankAccountId,
    deductCurrency: 'USDT',
    deductAmount: amount,
    timings,
  });
  ran.push(handle);
  return { reference, handle };
}

async function parkedAtDeadline(amount: string, timings: PayoutTimings = PARKS_AT_ONCE) {
  const { reference, handle } = await startPayout(amount, timings);
  const parked = await until(handle, (state) => state.stage === 'NEEDS_ATTENTION');
  expect(parked.attention).toMatchObject({ stage: 'AWAITING_SETTLEMENT', errorType: 'Deadline' });
  return { reference, handle, paymentId: parked.paymentId! };
}

/** PAYMENT_SETTLED through the real receiver and the ramp-event workflow's routing. */
async function deliverPaymentSettled(paymentId: string): Promise<void> {
  const receiver = await startReceiver({ client: h.client, taskQueue: h.taskQueue });
  try {
    expect((await receiver.post({ event: 'PAYMENT_SETTLED', payload: { id: paymentId } })).status).toBe(200);
  } finally {
    await receiver.close();
  }
}

describe('a payout parked at its settlement deadline', () => {
  it('settles when PAYMENT_SETTLED arrives after all, and the partner hears payout.settled', async () => {
    const { reference, handle, paymentId } = await parkedAtDeadline('3');
    await h.control.settlePayment(paymentId);
    await deliverPaymentSettled(paymentId);
    await until(handle, (state) => state.stage === 'SETTLED');
    expect(await handle.result()).toMatchObject({ stage: 'SETTLED', paymentId, paymentStatus: 'CONFIRMED' });
    expect(await partnerEventsOf(reference)).toEqual([
      { type: 'payout.settled', data: expect.objectContaining({ reference, paymentId }) },
    ]);
  });

  it('settles by its own look at the payment when no event comes', async () => {
    // Polls a second apart, parked after three: its late looks start a second after parking.
    const { reference, handle, paymentId } = await parkedAtDeadline('4', {
      pollIntervalSeconds: 1,
      settlementDeadlineSeconds: 3,
    });
    await h.control.settlePayment(paymentId);
    // A payout ends once its events are recorded: read them after its result.
    expect(await handle.result()).toMatchObject({ stage: 'SETTLED' });
    expect((await partnerEventsOf(reference)).map((event) => event.type)).toEqual(['payout.settled']);
  });

  it("refuses an operator's cancel while its payment is pending at the service, and still settles", async () => {
    const { reference, handle, paymentId } = await parkedAtDeadline('6');
    await expect(payouts.cancel(reference, 'paid by hand')).rejects.toThrow(
      `cancel refused: payment ${paymentId} exists at the service (PENDING)`,
    );
    expect(await handle.query(payoutStateQuery)).toMatchObject({ stage: 'NEEDS_ATTENTION', paymentStatus: 'PENDING' });

    await h.control.settlePayment(paymentId);
    await deliverPaymentSettled(paymentId);
    expect(await handle.result()).toMatchObject({ stage: 'SETTLED' });
    expect((await partnerEventsOf(reference)).map((event) => event.type)).toEqual(['payout.settled']);
  });

  it("takes a cancel once its payment failed, ending FAILED with the service's reason", async () => {
    const { reference, handle, paymentId } = await parkedAtDeadline('7');
    await h.control.failPayment(paymentId, 'beneficiary account closed');
    await payouts.cancel(reference, 'gave up');
    expect(await handle.result()).toMatchObject({
      stage: 'FAILED',
      paymentId,
      paymentStatus: 'FAILED',
      paymentFailureReason: 'beneficiary account closed',
    });
    expect(await partnerEventsOf(reference)).toEqual([
      { type: 'payout.failed', data: { reference, paymentId, reason: 'beneficiary account closed' } },
    ]);
  });
});

describe('a payment the service fails', () => {
  it("ends the payout FAILED with payout.failed naming the payment and the service's reason, not parked or settled", async () => {
    const { reference, handle } = await startPayout('8', { pollIntervalSeconds: 1, settlementDeadlineSeconds: 600 });
    const { paymentId } = await until(handle, (state) => state.stage === 'AWAITING_SETTLEMENT');
    await h.control.failPayment(paymentId!, 'rejected by the beneficiary bank');
    await until(handle, (state) => state.stage !== 'AWAITING_SETTLEMENT');
    expect(await handle.result()).toMatchObject({ stage: 'FAILED', paymentId, paymentStatus: 'FAILED' });
    expect(await partnerEventsOf(reference)).toEqual([
      { type: 'payout.failed', data: { reference, paymentId, reason: 'rejected by the beneficiary bank' } },
    ]);
  });
});

describe("a payment the service fails, with production's hourly polls", () => {
  it('is found by the early polls within a minute, not at the next hourly poll: no event announces a failed payment', async () => {
    const { handle } = await startPayout('9', { pollIntervalSeconds: 3600, settlementDeadlineSeconds: 86_400 });
    const { paymentId } = await until(handle, (state) => state.stage === 'AWAITING_SETTLEMENT');
    await h.control.failPayment(paymentId!, 'beneficiary account closed');
    await until(handle, (state) => state.stage !== 'AWAITING_SETTLEMENT');
    expect(await handle.result()).toMatchObject({
      stage: 'FAILED',
      paymentId,
      paymentStatus: 'FAILED',
      paymentFailureReason: 'beneficiary account closed',
    });
  });
});

describe('the create', () => {
  it('finds the payment by its reference when the read after a successful create answers FAILED, instead of parking', async () => {
    // The POST succeeds; the detail read right after it is refused once (422 FAILED).
    await h.control.injectFault({ path: '/payment/detail', kind: 'REFUSED' });
    const { reference, handle } = await startPayout('9', { pollIntervalSeconds: 1, settlementDeadlineSeconds: 600 });
    const next = await until(handle, (state) => state.stage !== 'CREATING_PAYMENT');
    expect(next.attention).toBeUndefined();
    expect(next.stage).toBe('AWAITING_SETTLEMENT');
    expect(await h.control.pendingFaults()).toEqual([]);
    expect((await h.ramp.payments.list({ reference })).list.map((payment) => payment.id)).toEqual([next.paymentId]);
  });

  it('takes a cancel of a payout the service refused to create: no payment exists, so payout.failed names none', async () => {
    const reference = `po-${randomUUID()}`;
    const handle = await payouts.start({
      reference,
      bankAccountId,
      deductCurrency: 'USDC',
      deductAmount: '1000000',
      timings: PARKS_AT_ONCE,
    });
    ran.push(handle);
    const parked = await until(handle, (state) => state.stage === 'NEEDS_ATTENTION');
    expect(parked.attention).toMatchObject({ stage: 'CREATING_PAYMENT', errorType: 'Refused' });
    await payouts.cancel(reference, 'paid by hand');
    expect(await handle.result()).toMatchObject({ stage: 'CANCELLED', cancelledBecause: 'paid by hand' });
    expect(await partnerEventsOf(reference)).toEqual([
      { type: 'payout.failed', data: { reference, reason: 'paid by hand' } },
    ]);
  });
});
