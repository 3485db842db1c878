/**
 * Forged hints against a deposit (workflows/common/trust.ts, workflows/common/waiting.ts), on the real dev server
 * against the sandbox. The harness has no webhook receiver, so every genuine event is lost: the
 * deposit learns what the service did only by a poll, or by a hint a test sends it. Someone holding
 * the webhook token can send hints with made-up ids as often as they like; they must neither keep
 * the deposit from polling nor push a genuine hint out.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as pause } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkflowHandle } from '@temporalio/client';
import type { RampClient } from '../../ramp';
import type { depositLifecycle } from '../../workflows/deposit/workflow';
import {
  cancelUpdate,
  closeCustomerUpdate,
  depositEventSignal,
  depositStateQuery,
  depositWorkflowId,
  paymentEventSignal,
  retryUpdate,
  tradeEventSignal,
} from '../../workflows/common/messages';
import { RampStage, RampStageSince } from '../../observability/search-attributes';
import { DEPOSIT_MAX_HISTORY_EVENTS } from '../../workflows/deposit/carry';
import { shownDeposit } from '../../workflows/journey/board';
import type { DepositRecord, PaymentRecord, RampEvent, TradeRecord } from '../../workflows/common/records';
import { until } from '../support/until';
import {
  type JourneyHarness,
  startActiveJourney,
  startJourneyHarness,
  TEST_AUD_SOURCE,
} from '../support/journey-harness';

/** A TRADE_CREATED delivery as the receiver routes it: the payload's record, a hint. */
function tradeHint(depositId: string, tradeId: string): RampEvent<TradeRecord> {
  const record = {
    id: tradeId,
    status: 'CREATED',
    depositId,
    fromAmount: '250.00',
    fromCurrency: 'AUD',
    toAmount: '160.00',
    toCurrency: 'USDT',
  };
  return { key: `TRADE_CREATED/${tradeId}/${randomUUID()}`, event: 'TRADE_CREATED', record, fromPayload: true };
}

/** A delivery claiming the deposit was approved (news while it waits for that: each costs a read). */
function depositHint(record: DepositRecord): RampEvent<DepositRecord> {
  return {
    key: `DEPOSIT_APPROVED/${record.id}/${randomUUID()}`,
    event: 'DEPOSIT_APPROVED',
    record: { ...record, status: 'CONFIRMED' },
    fromPayload: true,
  };
}

/** A PAYMENT_SETTLED with a made-up id (no news for an onramp deposit: nothing to read, only history). */
function paymentHint(): RampEvent<PaymentRecord> {
  const id = `forged-${randomUUID()}`;
  return {
    key: `PAYMENT_SETTLED/${id}`,
    event: 'PAYMENT_SETTLED',
    record: { id, status: 'SETTLED' },
    fromPayload: true,
  };
}

/** The trade the service made of a deposit (the customer has only the one). */
async function serviceTradeOf(ramp: RampClient, customerId: string, depositId: string): Promise<string> {
  for (const item of (await ramp.trades.list({ customerId, pageNum: 1, pageSize: 50 })).list) {
    if ((await ramp.trades.detail({ id: item.id })).deposit.id === depositId) return item.id;
  }
  throw new Error(`the service made no trade of deposit ${depositId}`);
}

/**
 * What a deposit run's history stays under (docs/guarantees/trust-rule.md): its limit, and what can
 * come in from the first workflow task past it to the run's close (here a batch of deliveries and
 * the events of the task that closes it).
 */
const HISTORY_BOUND = DEPOSIT_MAX_HISTORY_EVENTS + 250;

/** Polls every 4 s (no backoff); a step may wait 10 minutes before it parks. */
const POLL_SECONDS = 4;
let polling: JourneyHarness;
/** Polls once an hour: within a test, only a hint moves its deposits. */
let hintsOnly: JourneyHarness;
/** Parks a step after 2 s, then looks again 4 s later (doubling). */
let parking: JourneyHarness;

beforeAll(async () => {
  polling = await startJourneyHarness(
    {},
    {
      depositTimings: {
        pollIntervalSeconds: POLL_SECONDS,
        pollBackoffCapSeconds: POLL_SECONDS,
        stepDeadlineSeconds: 600,
      },
    },
  );
  hintsOnly = await startJourneyHarness(
    {},
    { depositTimings: { pollIntervalSeconds: 3600, pollBackoffCapSeconds: 3600, stepDeadlineSeconds: 86_400 } },
  );
  parking = await startJourneyHarness(
    {},
    {
      depositTimings: {
        pollIntervalSeconds: POLL_SECONDS,
        pollBackoffCapSeconds: POLL_SECONDS,
        stepDeadlineSeconds: 2,
      },
    },
  );
});
afterAll(async () => {
  await polling?.close();
  await hintsOnly?.close();
  await parking?.close();
});

/** A journey's AUD deposit, its workflow waiting in `stage` (RECEIVED: for the service's confirmation). */
async function receivedDeposit(h: JourneyHarness, stage: 'RECEIVED' | 'NEEDS_ATTENTION' = 'RECEIVED') {
  const { handle: journey, virtualAccountId } = await startActiveJourney(h);
  const deposit = await h.control.simulateFiatDeposit({
    virtualAccountId,
    amount: '250.00',
    currency: 'AUD',
    sender: TEST_AUD_SOURCE,
  });
  await h.reconcile();
  await h.waitForDeposit(deposit.id, (s) => s.stage === stage && s.customerId !== '');
  return {
    journey,
    deposit,
    handle: h.client.workflow.getHandle<typeof depositLifecycle>(depositWorkflowId(deposit.id)),
  };
}

/** Every run of a workflow, newest first, by the run each continued: the length of its history. */
async function runHistoryLengths(h: JourneyHarness, workflowId: string): Promise<number[]> {
  const lengths: number[] = [];
  for (let runId: string | undefined = (await h.client.workflow.getHandle(workflowId).describe()).runId; runId;) {
    const { events } = await h.client.workflow.getHandle(workflowId, runId).fetchHistory();
    lengths.push(events!.length);
    runId = events![0]!.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return lengths;
}

/**
 * 2,000 deliveries to a deposit, 25 at a time, each batch as soon as the deposit has taken the last
 * one: forged trades (each a read), approvals (each a read of the deposit) and payouts (no read). (A
 * flood faster than a workflow's tasks keeps any run from closing: the server refuses to close a run
 * whose task missed new events; see docs/guarantees/trust-rule.md.)
 */
async function stormOfDeliveries(handle: WorkflowHandle<typeof depositLifecycle>, depositId: string): Promise<void> {
  const { customerId, amount, currency } = await handle.query(depositStateQuery);
  const record: DepositRecord = { id: depositId, customerId, status: 'RECEIVED', amount, currency };
  const deliveries = [
    () => handle.signal(tradeEventSignal, tradeHint(depositId, `forged-${randomUUID()}`)),
    () => handle.signal(depositEventSignal, depositHint(record)),
    () => handle.signal(paymentEventSignal, paymentHint()),
  ];
  const STORM = 2_000;
  const AT_ONCE = 25;
  for (let sent = 0; sent < STORM; sent += AT_ONCE) {
    await Promise.all(Array.from({ length: AT_ONCE }, (_, n) => deliveries[(sent + n) % deliveries.length]!()));
    await until(
      'the deposit to take the deliveries',
      async () => ((await handle.describe()).raw.pendingWorkflowTask ? undefined : true),
      60_000,
      20,
    );
  }
}

describe('forged hints do not hold a deposit back', () => {
  it('a forged trade hint more often than the poll interval does not keep the deposit from finding its trade by poll', async () => {
    const { journey, deposit, handle } = await receivedDeposit(polling);
    // The service confirms the deposit and creates its trade; the events are lost.
    await polling.control.confirmDeposit(deposit.id);

    // A forged TRADE_CREATED, a made-up id each time, three times per poll interval. Before the fix
    // each one restarted the poll interval, so the deposit never polled while they kept coming.
    const hintsSent = 15 * 3; // fifteen poll intervals' worth
    let tradeId: string | undefined;
    for (let sent = 0; sent < hintsSent && tradeId === undefined; sent++) {
      await handle.signal(tradeEventSignal, tradeHint(deposit.id, `forged-${randomUUID()}`));
      await pause((POLL_SECONDS * 1000) / 3);
      tradeId = (await handle.query(depositStateQuery)).tradeId;
    }
    expect(tradeId, 'the deposit found its trade by poll while the forged hints kept coming').toBeDefined();
    expect(tradeId).toBe(
      await serviceTradeOf(polling.ramp, (await handle.query(depositStateQuery)).customerId, deposit.id),
    );
    await handle.terminate('test over');
    await journey.terminate('test over');
  });

  it("a parked deposit under forged trade hints still looks again on schedule, and finds the service's confirmation", async () => {
    const { journey, deposit, handle } = await receivedDeposit(parking, 'NEEDS_ATTENTION');
    await parking.control.confirmDeposit(deposit.id);

    // As above, while the deposit is parked at its deadline: before the fix each forged hint restarted
    // the pause before its next look at the service.
    let status: string | undefined;
    for (let sent = 0; sent < 15 * 3 && status !== 'CONFIRMED'; sent++) {
      await handle.signal(tradeEventSignal, tradeHint(deposit.id, `forged-${randomUUID()}`));
      await pause((POLL_SECONDS * 1000) / 3);
      status = (await handle.query(depositStateQuery)).status;
    }
    expect(status, 'a late look read the confirmation while the forged hints kept coming').toBe('CONFIRMED');
    await handle.terminate('test over');
    await journey.terminate('test over');
  });

  it('a burst of forged trade hints right after the genuine one does not push it out: the deposit takes its trade from the hint', async () => {
    const h = hintsOnly;
    const { journey, deposit, handle } = await receivedDeposit(h);
    const { customerId } = await handle.query(depositStateQuery);
    await h.control.confirmDeposit(deposit.id);
    const tradeId = await serviceTradeOf(h.ramp, customerId, deposit.id);

    // With the worker away the deliveries queue up, so the deposit's next task sees them all at once:
    // the genuine TRADE_CREATED, then ten forged ones.
    await h.stopWorker();
    await handle.signal(tradeEventSignal, tradeHint(deposit.id, tradeId));
    for (let n = 0; n < 10; n++) await handle.signal(tradeEventSignal, tradeHint(deposit.id, `forged-${randomUUID()}`));
    await h.startWorker();

    // The next poll is an hour away: only the genuine hint can bring the trade in.
    const state = await h.waitForDeposit(deposit.id, (s) => s.tradeId !== undefined);
    expect(state.tradeId).toBe(tradeId);
    await handle.terminate('test over');
    await journey.terminate('test over');
  });

  it("a storm of 2,000 deliveries to one deposit: every run's history stays under its bound, and the deposit completes and reports once", async () => {
    const h = polling;
    const { journey, deposit, handle } = await receivedDeposit(h);
    const { amount, currency } = await handle.query(depositStateQuery);
    await stormOfDeliveries(handle, deposit.id);

    await h.control.confirmDeposit(deposit.id);
    const { tradeId } = await h.waitForDeposit(deposit.id, (s) => s.tradeId !== undefined, 120_000);
    await h.control.settleTrade(tradeId!);
    expect(await handle.result()).toMatchObject({ stage: 'COMPLETED' });
    const state = await h.waitForJourney(journey, (s) => shownDeposit(s.deposits, deposit.id)?.stage === 'COMPLETED');
    expect(state.deposits.completedTotals).toEqual({ [currency]: amount });

    const lengths = await runHistoryLengths(h, handle.workflowId);
    expect(lengths.length, 'runs').toBeGreaterThan(1);
    for (const length of lengths) expect(length).toBeLessThanOrEqual(HISTORY_BOUND);
    await journey.terminate('test over');
  });
});

describe('a parked deposit under a storm of deliveries', () => {
  it("continues as new still parked, with the same attention, and an operator's retry resumes it to completion", async () => {
    const h = parking;
    const { journey, deposit, handle } = await receivedDeposit(h, 'NEEDS_ATTENTION');
    const { attention, amount, currency } = await handle.query(depositStateQuery);
    expect(attention?.errorType).toBe('Deadline');
    const indexed = async () => {
      const { typedSearchAttributes } = await handle.describe();
      return {
        stage: typedSearchAttributes.get(RampStage),
        since: typedSearchAttributes.get(RampStageSince)?.toISOString(),
      };
    };
    const indexedWhenParked = await indexed();
    expect(indexedWhenParked.stage).toBe('NEEDS_ATTENTION');

    // Before the fix a parked deposit never continued as new: the whole storm landed in one run.
    await stormOfDeliveries(handle, deposit.id);
    const lengths = await runHistoryLengths(h, handle.workflowId);
    expect(lengths.length, 'runs').toBeGreaterThan(1);
    for (const length of lengths) expect(length).toBeLessThanOrEqual(HISTORY_BOUND);

    // Parked as before: the same reason and the same since, for the deposit and for its journey.
    const parked = await handle.query(depositStateQuery);
    expect(parked.stage).toBe('NEEDS_ATTENTION');
    expect(parked.attention).toEqual(attention);
    expect(await indexed(), 'what the stage-age scan and lists read').toEqual(indexedWhenParked);
    const board = await h.waitForJourney(
      journey,
      (s) => shownDeposit(s.deposits, deposit.id)?.stage === 'NEEDS_ATTENTION',
    );
    expect(shownDeposit(board.deposits, deposit.id)).toMatchObject({ stage: 'NEEDS_ATTENTION', attention });

    // The run the storm left takes an operator's retry; the deposit then goes on to completion.
    expect(await handle.executeUpdate(retryUpdate, { args: [{}] })).toEqual({ resumed: 'RECEIVED' });
    await h.control.confirmDeposit(deposit.id);
    const { tradeId } = await h.waitForDeposit(deposit.id, (s) => s.tradeId !== undefined, 120_000);
    await h.control.settleTrade(tradeId!);
    expect(await handle.result()).toMatchObject({ stage: 'COMPLETED' });
    const state = await h.waitForJourney(journey, (s) => shownDeposit(s.deposits, deposit.id)?.stage === 'COMPLETED');
    expect(state.deposits.completedTotals).toEqual({ [currency]: amount });
    await journey.terminate('test over');
  });

  it("a park with no fact to look for (money for a customer not served) continues as new parked too, and an operator's cancel ends the run the storm left", async () => {
    const h = parking;
    const { handle: journey, virtualAccountId } = await startActiveJourney(h);
    await journey.executeUpdate(closeCustomerUpdate, { args: [{ reason: 'the customer left' }] });
    await journey.result();
    const deposit = await h.control.simulateFiatDeposit({
      virtualAccountId,
      amount: '60.00',
      currency: 'AUD',
      sender: TEST_AUD_SOURCE,
    });
    await h.reconcile();
    const { attention } = await h.waitForDeposit(deposit.id, (s) => s.stage === 'NEEDS_ATTENTION');
    expect(attention?.errorType).toBe('CustomerNotServed');
    const handle = h.client.workflow.getHandle<typeof depositLifecycle>(depositWorkflowId(deposit.id));

    await stormOfDeliveries(handle, deposit.id);
    const lengths = await runHistoryLengths(h, handle.workflowId);
    expect(lengths.length, 'runs').toBeGreaterThan(1);
    for (const length of lengths) expect(length).toBeLessThanOrEqual(HISTORY_BOUND);
    expect(await handle.query(depositStateQuery)).toMatchObject({ stage: 'NEEDS_ATTENTION', attention });

    expect(await handle.executeUpdate(cancelUpdate, { args: [{ reason: 'returned to the sender' }] })).toEqual({
      cancelled: true,
    });
    expect(await handle.result()).toEqual({ stage: 'CANCELLED', reason: 'returned to the sender' });
  });
});
