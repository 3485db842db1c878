/**
 * A parked payout under a storm of deliveries ("Nothing wedges"), on the real dev server against the
 * sandbox: every PAYMENT_SETTLED routed to it grows its history, so a parked payout continues as new
 * still parked, with the same attention, and an operator's retry or cancel works on the run the
 * storm left. The partner hears how the payout ended once. (A payout parked before its payment
 * exists hears no deliveries: the router signals a payout only the payment it read from the service.)
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PayoutClient, type PayoutHandle } from '../../client/payouts';
import { retryUpdate } from '../../workflows/common/messages';
import { PAYOUT_MAX_HISTORY_EVENTS } from '../../workflows/payout/workflow';
import { payoutStateQuery, type PayoutState, type PayoutTimings } from '../../workflows/payout/messages';
import { payoutPaymentEventSignal } from '../../workflows/common/messages';
import type { PaymentRecord, RampEvent } from '../../workflows/common/records';
import { RampStage, RampStageSince } from '../../observability/search-attributes';
import { startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { startPartnerEvents, type PartnerEventsUnderTest } from '../support/partner-event-wiring';
import { until as eventually } from '../support/until';
import { startReceiver } from '../webhooks/support/receiver';

let h: JourneyHarness;
let events: PartnerEventsUnderTest;
let payouts: PayoutClient;
let bankAccountId: string;

/** Polls an hour apart and a deadline of two seconds: the payout parks before any poll. */
const PARKS_AT_ONCE: PayoutTimings = { pollIntervalSeconds: 3600, settlementDeadlineSeconds: 2 };
/** A run's limit, and what can come in from the first workflow task past it to the run's close. */
const HISTORY_BOUND = PAYOUT_MAX_HISTORY_EVENTS + 250;

beforeAll(async () => {
  events = await startPartnerEvents();
  h = await startJourneyHarness({}, { partnerEvents: events.wiring });
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

afterAll(async () => {
  await h?.close();
  await events?.close();
});

async function parked(handle: WorkflowHandle): Promise<PayoutState> {
  return eventually(
    'the payout to park',
    async () => {
      const state = await handle.query(payoutStateQuery);
      return state.stage === 'NEEDS_ATTENTION' ? state : undefined;
    },
    60_000,
  );
}

/** A PAYMENT_SETTLED about `paymentId` as the router signals it. */
function paymentSettled(paymentId: string): RampEvent<PaymentRecord> {
  return {
    key: `PAYMENT_SETTLED/${paymentId}/${randomUUID()}`,
    event: 'PAYMENT_SETTLED',
    record: { id: paymentId, status: 'PENDING' },
    fromPayload: true,
  };
}

/**
 * 2,000 deliveries about the payout's payment, 25 at a time, each batch as soon as the payout has
 * taken the last one. Only these reach a payout: the router signals it a payment it read from the
 * service whose reference names it, so a forged delivery is a true one repeated. Parked at its
 * deadline, the payout reads the payment on each.
 */
async function stormOfDeliveries(handle: WorkflowHandle, paymentId: string): Promise<void> {
  const STORM = 2_000;
  const AT_ONCE = 25;
  for (let sent = 0; sent < STORM; sent += AT_ONCE) {
    await Promise.all(
      Array.from({ length: AT_ONCE }, () => handle.signal(payoutPaymentEventSignal, paymentSettled(paymentId))),
    );
    await eventually(
      'the payout to take the deliveries',
      async () => ((await handle.describe()).raw.pendingWorkflowTask ? undefined : true),
      60_000,
      20,
    );
  }
}

/** Every run of the payout, newest first, by the run each continued: the length of its history. */
async function runHistoryLengths(workflowId: string): Promise<number[]> {
  const lengths: number[] = [];
  for (let runId: string | undefined = (await h.client.workflow.getHandle(workflowId).describe()).runId; runId;) {
    const { events: history } = await h.client.workflow.getHandle(workflowId, runId).fetchHistory();
    lengths.push(history!.length);
    runId = history![0]!.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return lengths;
}

async function indexed(handle: WorkflowHandle) {
  const { typedSearchAttributes } = await handle.describe();
  return {
    stage: typedSearchAttributes.get(RampStage),
    since: typedSearchAttributes.get(RampStageSince)?.toISOString(),
  };
}

async function partnerEventsOf(reference: string) {
  return (await events.store.stream(`payout/${reference}`, 0, 10)).map(({ type }) => type);
}

async function expectParkedThroughTheStorm(handle: PayoutHandle, paymentId: string): Promise<PayoutState> {
  const before = await parked(handle);
  const indexedBefore = await indexed(handle);
  expect(indexedBefore.stage).toBe('NEEDS_ATTENTION');
  await stormOfDeliveries(handle, paymentId);
  // Before the fix a parked payout never continued as new: the whole storm landed in one run.
  const lengths = await runHistoryLengths(handle.workflowId);
  expect(lengths.length, 'runs').toBeGreaterThan(1);
  for (const length of lengths) expect(length).toBeLessThanOrEqual(HISTORY_BOUND);
  // Parked as before: the same reason and since, shown and indexed.
  const after = await handle.query(payoutStateQuery);
  expect(after).toEqual(before);
  expect(await indexed(handle)).toEqual(indexedBefore);
  return after;
}

describe('a parked payout under a storm of deliveries', () => {
  it('parked at its settlement deadline, continues as new still parked; the run the storm left refuses a cancel and takes a retry, and it settles with one payout.settled', async () => {
    await h.control.creditBalance({ currency: 'USDT', amount: '3' });
    const reference = `po-${randomUUID()}`;
    const handle = await payouts.start({
      reference,
      bankAccountId,
      deductCurrency: 'USDT',
      deductAmount: '3',
      timings: PARKS_AT_ONCE,
    });
    const { paymentId, attention } = await parked(handle);
    expect(attention).toMatchObject({ stage: 'AWAITING_SETTLEMENT', errorType: 'Deadline' });
    await expectParkedThroughTheStorm(handle, paymentId!);

    // Its cancel guard reads the payment, as documented: pending, so the cancel is refused.
    await expect(payouts.cancel(reference, 'paid by hand')).rejects.toThrow(
      `cancel refused: payment ${paymentId} exists at the service (PENDING)`,
    );
    expect(await handle.executeUpdate(retryUpdate, { args: [{}] })).toEqual({ resumed: 'AWAITING_SETTLEMENT' });
    await h.control.settlePayment(paymentId!);
    const receiver = await startReceiver({ client: h.client, taskQueue: h.taskQueue });
    try {
      expect((await receiver.post({ event: 'PAYMENT_SETTLED', payload: { id: paymentId } })).status).toBe(200);
    } finally {
      await receiver.close();
    }
    expect(await handle.result()).toMatchObject({ stage: 'SETTLED', paymentId, paymentStatus: 'CONFIRMED' });
    expect(await partnerEventsOf(reference)).toEqual(['payout.settled']);
  });
});
