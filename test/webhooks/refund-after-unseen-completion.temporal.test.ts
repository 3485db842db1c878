/**
 * A refund that reaches a deposit's workflow while it still waits (for the trade, or for the
 * confirmation itself), though the service had already settled the trade and paid the payout: the
 * deposit completed at the service before it was refunded. The partner must hear `deposit.completed`,
 * then `deposit.reversed`, as for any refund of a completed deposit; its books would otherwise never
 * show the payout that went out. A refund during the payout (never paid) is reversed alone, and a
 * deposit rejected without being confirmed stays a rejection. Before the fix, the deposit last read
 * unconfirmed was even reported `deposit.rejected`.
 *
 * Found by the chaos run (seed 3, 80 customers, 2026-11-28): under load, the refund's delivery reached 7
 * deposits before their workflows had read the trade's settlement, and each ended REVERSED with no
 * `deposit.completed`. Here only the refund is delivered (posted to the receiver as the service
 * would), so the workflow reads the refund first every time.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shownDeposit } from '../../workflows/journey/board';
import { depositWorkflowId, type JourneyState, journeyStateQuery } from '../../workflows/common/messages';
import { type JourneyHarness, startJourneyHarness } from '../support/journey-harness';
import { type PartnerEventsUnderTest, startPartnerEvents } from '../support/partner-event-wiring';
import { pastTheRetention } from '../support/temporal';
import { until } from '../support/until';
import { type OfframpByWebhooks, startOfframpByWebhooks } from './support/offramp-by-webhooks';

const EVENTS_ONLY_DEPOSITS = { pollIntervalSeconds: 3600, stepDeadlineSeconds: 86_400, notFoundGraceSeconds: 1 };

let h: JourneyHarness;
let events: PartnerEventsUnderTest;
let customer: OfframpByWebhooks;

beforeAll(async () => {
  events = await startPartnerEvents();
  h = await startJourneyHarness(
    { clock: { frozen: true } },
    { depositTimings: EVENTS_ONLY_DEPOSITS, partnerEvents: events.wiring },
  );
  customer = await startOfframpByWebhooks(h, EVENTS_ONLY_DEPOSITS);
});
afterAll(async () => {
  await customer?.receiver.close();
  await h?.close();
  await events?.close();
});

const totals = (state: JourneyState) => ({
  completed: state.deposits.completedTotals.USDT ?? '0.000000',
  reversed: state.deposits.reversedTotals.USDT ?? '0.000000',
});

/** The journey's totals now, and what they are with `amount` more reversed (each case runs alone or after the others). */
async function totalsWithReversed(amount: string): Promise<{ completed: string; reversed: string }> {
  const before = totals(await customer.journey.query(journeyStateQuery));
  return { completed: before.completed, reversed: (Number(before.reversed) + Number(amount)).toFixed(6) };
}

/** A deposit confirmed, its workflow waiting for the trade to settle (it has read the trade's creation). */
async function depositWaitingForItsTrade(amount: string): Promise<{ depositId: string; handle: WorkflowHandle }> {
  const depositId = await customer.pay(amount);
  await customer.deliver();
  await h.waitForDeposit(depositId, (s) => s.stage === 'TRADE_CREATED');
  return { depositId, handle: h.client.workflow.getHandle(depositWorkflowId(depositId)) };
}

/** The service refunds the deposit; only its DEPOSIT_REJECTED reaches the receiver (the other events are still due). */
async function refundDeliveredAlone(depositId: string): Promise<void> {
  await h.control.refundDeposit(depositId);
  await customer.receiver.post({ event: 'DEPOSIT_REJECTED', payload: await h.ramp.deposits.detail({ id: depositId }) });
}

/** The partner's events about one deposit, once one of them is `deposit.reversed` (this file's customer unless told). */
async function eventsOfReversed(
  depositId: string,
  heardBy: { events: PartnerEventsUnderTest; customer: OfframpByWebhooks } = { events, customer },
) {
  return until(
    'the partner to hear of the reversal',
    async () => {
      const ofDeposit = heardBy.events.endpoint
        .eventsOf(heardBy.customer.externalId)
        .filter((event) => (event.data as { depositId?: string }).depositId === depositId);
      return ofDeposit.some((event) => event.type === 'deposit.reversed') ? ofDeposit : undefined;
    },
    60_000,
  );
}

/** The types of the partner's events about one deposit, once one of them is `deposit.reversed`. */
async function partnerHeardOf(depositId: string): Promise<string[]> {
  return (await eventsOfReversed(depositId)).map((event) => event.type);
}

/** The deposit's workflow, once the receiver has started it for a delivery (through a ramp-event workflow, for a deposit it has not seen). */
async function startedByTheDelivery(harness: JourneyHarness, depositId: string): Promise<WorkflowHandle> {
  const handle = harness.client.workflow.getHandle(depositWorkflowId(depositId));
  await until(
    "the delivery to start the deposit's workflow",
    () =>
      handle.describe().then(
        () => true,
        () => undefined,
      ),
    30_000,
  );
  return handle;
}

const SENDER = { address: '0x0000000000000000000000000000000000000001', network: 'ETH' };

/** A deposit the service has not confirmed yet, its workflow waiting for the confirmation. */
async function depositWaitingForConfirmation(amount: string): Promise<{ depositId: string; handle: WorkflowHandle }> {
  const deposit = await h.control.simulateCryptoDeposit({
    depositAddressId: customer.depositAddressId,
    amount,
    currency: 'USDT',
    sender: SENDER,
  });
  await customer.deliver();
  // The journey lists it: the run's first read is done (one that read the refund first is another case:
  // a first read cannot tell a first run from one after retention).
  await h.waitForJourney(customer.journey, (s) => shownDeposit(s.deposits, deposit.id)?.stage === 'RECEIVED');
  return { depositId: deposit.id, handle: h.client.workflow.getHandle(depositWorkflowId(deposit.id)) };
}

/**
 * The run ended REVERSED with its trade read settled, the partner heard `heard` of the deposit, and
 * the journey's totals are `expected` (the amount reversed, the completed total as it was).
 */
async function expectReversedAfterSettlement(
  depositId: string,
  handle: WorkflowHandle,
  heard: string[],
  expected: { completed: string; reversed: string },
): Promise<void> {
  expect(await handle.result()).toMatchObject({
    stage: 'REVERSED',
    reason: expect.stringContaining('after its trade settled'),
  });
  expect(await partnerHeardOf(depositId)).toEqual(heard);
  const state = await h.waitForJourney(
    customer.journey,
    (s) => shownDeposit(s.deposits, depositId)?.stage === 'REVERSED',
  );
  expect(totals(state)).toEqual(expected);
}

describe('a refund read before the settlement the service made first', () => {
  it('reports the deposit completed, then reversed, when its trade settled and its payout was paid before the refund', async () => {
    const { depositId, handle } = await depositWaitingForItsTrade('21.000000');
    const expected = await totalsWithReversed('21.000000');
    const trade = await customer.tradeOf(depositId);
    await h.control.settleTrade(trade.id);
    await h.control.settlePayment((await customer.tradeOf(depositId)).paymentId!);
    await refundDeliveredAlone(depositId);

    await expectReversedAfterSettlement(
      depositId,
      handle,
      ['deposit.received', 'deposit.completed', 'deposit.reversed'],
      expected,
    );
  });

  it('reports it completed, then reversed, when its workflow awaited the payout the service paid before the refund', async () => {
    const { depositId, handle } = await depositWaitingForItsTrade('25.000000');
    const expected = await totalsWithReversed('25.000000');
    await h.control.settleTrade((await customer.tradeOf(depositId)).id);
    await customer.deliver();
    await h.waitForDeposit(depositId, (s) => s.stage === 'TRADE_SETTLED');
    await h.control.settlePayment((await customer.tradeOf(depositId)).paymentId!);
    await refundDeliveredAlone(depositId);

    await expectReversedAfterSettlement(
      depositId,
      handle,
      ['deposit.received', 'deposit.completed', 'deposit.reversed'],
      expected,
    );
  });

  it('reports it reversed alone when the refund came while its payout was still pending (the service then never pays it)', async () => {
    const { depositId, handle } = await depositWaitingForItsTrade('22.000000');
    const expected = await totalsWithReversed('22.000000');
    await h.control.settleTrade((await customer.tradeOf(depositId)).id);
    await refundDeliveredAlone(depositId);

    await expectReversedAfterSettlement(depositId, handle, ['deposit.received', 'deposit.reversed'], expected);
  });

  it('reports it completed, then reversed, when the workflow last read it unconfirmed and the service confirmed, settled, paid and refunded it since', async () => {
    const { depositId, handle } = await depositWaitingForConfirmation('23.000000');
    const expected = await totalsWithReversed('23.000000');
    await h.control.confirmDeposit(depositId);
    await h.control.settleTrade((await customer.tradeOf(depositId)).id);
    await h.control.settlePayment((await customer.tradeOf(depositId)).paymentId!);
    await refundDeliveredAlone(depositId);

    await expectReversedAfterSettlement(
      depositId,
      handle,
      ['deposit.received', 'deposit.completed', 'deposit.reversed'],
      expected,
    );
  });

  it('still reports a deposit the service rejected without confirming it as rejected: no trade names it', async () => {
    const { depositId, handle } = await depositWaitingForConfirmation('24.000000');
    await h.control.rejectDeposit(depositId);
    await customer.receiver.post({
      event: 'DEPOSIT_REJECTED',
      payload: await h.ramp.deposits.detail({ id: depositId }),
    });

    expect(await handle.result()).toMatchObject({ stage: 'REJECTED' });
    const heard = await until(
      'the partner to hear of the rejection',
      async () => {
        const types = events.endpoint
          .eventsOf(customer.externalId)
          .filter((event) => (event.data as { depositId?: string }).depositId === depositId)
          .map((event) => event.type);
        return types.includes('deposit.rejected') ? types : undefined;
      },
      60_000,
    );
    expect(heard).toEqual(['deposit.received', 'deposit.rejected']);
  });
});

/**
 * A deposit whose every event was lost until the refund: the service confirmed it, settled its trade,
 * paid its payout and refunded it before its workflow started, so the run's very first read shows it
 * REJECTED. Found by the chaos run (seed 3, 80 customers): the partner heard only `deposit.reversed`,
 * and the journey took the amount off its completed total though it had never counted it, so a customer
 * with another completed deposit in the currency was counted short. No earlier run can have told the
 * journey of the completion when the trade is younger than the namespace's retention (a closed run stays
 * that long, and while it stays the refund goes to a reversal run of its own).
 */
describe('a refund that a deposit reads first, every event of it lost before', () => {
  /** Paid, traded, paid out and refunded at the service with nothing delivered; then only the refund is. */
  async function completedAndRefundedUnheard(amount: string): Promise<{ depositId: string; handle: WorkflowHandle }> {
    const depositId = await customer.pay(amount);
    const trade = await customer.tradeOf(depositId);
    await h.control.settleTrade(trade.id);
    await h.control.settlePayment((await customer.tradeOf(depositId)).paymentId!);
    await refundDeliveredAlone(depositId);
    return { depositId, handle: await startedByTheDelivery(h, depositId) };
  }

  it('reports it completed, then reversed, and the completed total of the other deposits stays whole', async () => {
    // Another deposit completed in the same currency, so a completion taken off that was never counted shows.
    const counted = await customer.pay('30.000000');
    await customer.deliver();
    await h.control.settleTrade((await customer.tradeOf(counted)).id);
    await customer.deliver();
    await h.waitForDeposit(counted, (s) => s.stage === 'TRADE_SETTLED');
    await h.control.settlePayment((await customer.tradeOf(counted)).paymentId!);
    await customer.deliver();
    expect(await h.client.workflow.getHandle(depositWorkflowId(counted)).result()).toMatchObject({
      stage: 'COMPLETED',
    });
    const expected = await totalsWithReversed('26.000000');
    expect(Number(expected.completed)).toBeGreaterThanOrEqual(30);

    const { depositId, handle } = await completedAndRefundedUnheard('26.000000');

    await expectReversedAfterSettlement(
      depositId,
      handle,
      ['deposit.received', 'deposit.completed', 'deposit.reversed'],
      expected,
    );
    const reversed = events.endpoint
      .eventsOf(customer.externalId)
      .find(
        (event) => event.type === 'deposit.reversed' && (event.data as { depositId?: string }).depositId === depositId,
      );
    expect(reversed?.data).toMatchObject({ after: 'COMPLETED' });
  });
});

/**
 * The same, with a trade older than the namespace's retention (the sandbox's clock set that far back):
 * an earlier run that told the journey of the completion may have been removed since, so the run reports
 * the reversal alone, of a deposit the journey counted COMPLETED (docs/integrating/journey.md, "Refunds
 * and reversals"). A journey that never counted it, as here, keeps its completed total at zero.
 */
describe('a refund that a deposit reads first, of a trade older than the retention', () => {
  let old: JourneyHarness;
  let oldEvents: PartnerEventsUnderTest;
  let oldCustomer: OfframpByWebhooks;

  beforeAll(async () => {
    oldEvents = await startPartnerEvents();
    old = await startJourneyHarness(
      { clock: { frozen: true, startTime: await pastTheRetention() } },
      { depositTimings: EVENTS_ONLY_DEPOSITS, partnerEvents: oldEvents.wiring },
    );
    oldCustomer = await startOfframpByWebhooks(old, EVENTS_ONLY_DEPOSITS);
  });
  afterAll(async () => {
    await oldCustomer?.receiver.close();
    await old?.close();
    await oldEvents?.close();
  });

  it('reports it reversed alone, as after a completed run that retention removed', async () => {
    const depositId = await oldCustomer.pay('27.000000');
    await old.control.settleTrade((await oldCustomer.tradeOf(depositId)).id);
    await old.control.settlePayment((await oldCustomer.tradeOf(depositId)).paymentId!);
    await old.control.refundDeposit(depositId);
    await oldCustomer.receiver.post({
      event: 'DEPOSIT_REJECTED',
      payload: await old.ramp.deposits.detail({ id: depositId }),
    });

    const handle = await startedByTheDelivery(old, depositId);
    expect(await handle.result()).toMatchObject({
      stage: 'REVERSED',
      reason: expect.stringContaining('after its trade settled'),
    });
    const heard = await eventsOfReversed(depositId, { events: oldEvents, customer: oldCustomer });
    expect(heard.map((event) => [event.type, (event.data as { after?: string }).after])).toEqual([
      ['deposit.reversed', 'COMPLETED'],
    ]);
    const state = await old.waitForJourney(
      oldCustomer.journey,
      (s) => shownDeposit(s.deposits, depositId)?.stage === 'REVERSED',
    );
    expect(state.deposits.completedTotals.USDT ?? '0').toMatch(/^0(\.0+)?$/);
    expect(state.deposits.reversedTotals.USDT).toBe('27.000000');
  });
});

/**
 * A deposit parked at its confirmation's deadline (the journey told RECEIVED, then NEEDS_ATTENTION)
 * while the service confirmed, traded, paid out and refunded it, none of it delivered; the refund's
 * delivery then wakes the parked run, which reads the deposit REJECTED before it ever saw it
 * confirmed. It used to end REVERSED "after NEEDS_ATTENTION", and the partner never heard of the
 * completion; this run told the journey only open stages, so no one else did either.
 */
describe('a refund read by a deposit parked before its confirmation', () => {
  let parked: JourneyHarness;
  let parkedEvents: PartnerEventsUnderTest;
  let parkedCustomer: OfframpByWebhooks;
  const PARKING_SOON = { ...EVENTS_ONLY_DEPOSITS, stepDeadlineSeconds: 2 };

  beforeAll(async () => {
    parkedEvents = await startPartnerEvents();
    parked = await startJourneyHarness(
      { clock: { frozen: true } },
      { depositTimings: PARKING_SOON, partnerEvents: parkedEvents.wiring },
    );
    parkedCustomer = await startOfframpByWebhooks(parked, PARKING_SOON);
  });
  afterAll(async () => {
    await parkedCustomer?.receiver.close();
    await parked?.close();
    await parkedEvents?.close();
  });

  it('reports it completed, then reversed', async () => {
    const deposit = await parked.control.simulateCryptoDeposit({
      depositAddressId: parkedCustomer.depositAddressId,
      amount: '28.000000',
      currency: 'USDT',
      sender: SENDER,
    });
    await parkedCustomer.deliver();
    await parked.waitForDeposit(deposit.id, (s) => s.stage === 'NEEDS_ATTENTION');
    await parked.control.confirmDeposit(deposit.id);
    await parked.control.settleTrade((await parkedCustomer.tradeOf(deposit.id)).id);
    await parked.control.settlePayment((await parkedCustomer.tradeOf(deposit.id)).paymentId!);
    await parked.control.refundDeposit(deposit.id);
    await parkedCustomer.receiver.post({
      event: 'DEPOSIT_REJECTED',
      payload: await parked.ramp.deposits.detail({ id: deposit.id }),
    });

    const handle = parked.client.workflow.getHandle(depositWorkflowId(deposit.id));
    expect(await handle.result()).toMatchObject({
      stage: 'REVERSED',
      reason: expect.stringContaining('after its trade settled'),
    });
    const heard = await eventsOfReversed(deposit.id, { events: parkedEvents, customer: parkedCustomer });
    expect(heard.map((event) => event.type)).toEqual(['deposit.received', 'deposit.completed', 'deposit.reversed']);
    const state = await parked.waitForJourney(
      parkedCustomer.journey,
      (s) => shownDeposit(s.deposits, deposit.id)?.stage === 'REVERSED',
    );
    expect(state.deposits.completedTotals.USDT ?? '0').toMatch(/^0(\.0+)?$/);
    expect(state.deposits.reversedTotals.USDT).toBe('28.000000');
  });
});
