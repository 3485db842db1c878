/**
 * Refunds end to end: the service gives back a deposit it had confirmed (DEPOSIT_REFUND in
 * ramp/assumptions.ts: the deposit shows REJECTED, with DEPOSIT_REJECTED), before its trade settled,
 * after it settled, and after the deposit completed. Each ends REVERSED on the service's own record,
 * the journey's totals follow, and nothing ends silently as TARGET_CLOSED.
 *
 * The sandbox's clock is frozen; advancing it a minute runs the service's delivery scheduler, and the
 * receiver routes each event on the default (direct) routing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shownDeposit } from '../../workflows/journey/board';
import { depositWorkflowId, type JourneyState, journeyStateQuery } from '../../workflows/common/messages';
import type { RampEventResult } from '../../workflows/ramp-event/events';
import { type JourneyHarness, startJourneyHarness } from '../support/journey-harness';
import { type OfframpByWebhooks, startOfframpByWebhooks } from './support/offramp-by-webhooks';

const EVENTS_ONLY_DEPOSITS = { pollIntervalSeconds: 3600, stepDeadlineSeconds: 86_400, notFoundGraceSeconds: 1 };

let h: JourneyHarness;
let customer: OfframpByWebhooks;

beforeAll(async () => {
  h = await startJourneyHarness({ clock: { frozen: true } }, { depositTimings: EVENTS_ONLY_DEPOSITS });
  customer = await startOfframpByWebhooks(h, EVENTS_ONLY_DEPOSITS);
});
afterAll(async () => {
  await customer?.receiver.close();
  await h?.close();
});

const deliver = () => customer.deliver();
const tradeOf = (depositId: string) => customer.tradeOf(depositId);
const pay = (amount: string) => customer.pay(amount);

const totals = (state: JourneyState) => ({
  completed: state.deposits.completedTotals.USDT,
  reversed: state.deposits.reversedTotals.USDT,
});

describe('a deposit the service refunds after confirming it', () => {
  it('ends REVERSED when refunded before its trade settled', async () => {
    const depositId = await pay('11.000000');
    await deliver();
    await h.waitForDeposit(depositId, (s) => s.stage === 'TRADE_CREATED');
    await h.control.refundDeposit(depositId);
    await deliver();
    expect(await h.client.workflow.getHandle(depositWorkflowId(depositId)).result()).toMatchObject({
      stage: 'REVERSED',
      reason: expect.stringContaining('after its trade was created'),
    });
    const state = await h.waitForJourney(
      customer.journey,
      (s) => shownDeposit(s.deposits, depositId)?.stage === 'REVERSED',
    );
    expect(totals(state).reversed).toBe('11.000000');
    expect(state.deposits.byStage.REVERSED).toBe(1);
    expect(
      (await h.client.workflow.getHandle(`event/DEPOSIT_REJECTED/${depositId}`).result()) as RampEventResult,
    ).toMatchObject({ outcome: 'ROUTED' });
  });

  it('ends REVERSED when refunded after its trade settled, before the payout', async () => {
    const depositId = await pay('12.000000');
    await h.control.settleTrade((await tradeOf(depositId)).id);
    await deliver();
    await h.waitForDeposit(depositId, (s) => s.stage === 'TRADE_SETTLED');
    await h.control.refundDeposit(depositId);
    await deliver();
    expect(await h.client.workflow.getHandle(depositWorkflowId(depositId)).result()).toMatchObject({
      stage: 'REVERSED',
      reason: expect.stringContaining('after its trade settled'),
    });
    const state = await h.waitForJourney(
      customer.journey,
      (s) => shownDeposit(s.deposits, depositId)?.stage === 'REVERSED',
    );
    expect(totals(state).reversed).toBe('23.000000');
  });

  it("takes a completed deposit out of the journey's completed totals when refunded after completion", async () => {
    const depositId = await pay('13.000000');
    await h.control.settleTrade((await tradeOf(depositId)).id);
    await h.control.settlePayment((await tradeOf(depositId)).paymentId!);
    await deliver();
    const completed = await h.waitForJourney(
      customer.journey,
      (s) => shownDeposit(s.deposits, depositId)?.stage === 'COMPLETED',
    );
    expect(totals(completed).completed).toBe('13.000000');

    await h.control.refundDeposit(depositId);
    await deliver();
    // The refund reached the deposit, whose first run had ended: a run of its own reports the reversal.
    expect(
      (await h.client.workflow.getHandle(`event/DEPOSIT_REJECTED/${depositId}`).result()) as RampEventResult,
    ).toMatchObject({ outcome: 'ROUTED', target: depositWorkflowId(depositId) });
    expect(await h.client.workflow.getHandle(depositWorkflowId(depositId)).result()).toMatchObject({
      stage: 'REVERSED',
    });
    const state = await h.waitForJourney(
      customer.journey,
      (s) => shownDeposit(s.deposits, depositId)?.stage === 'REVERSED',
    );
    expect(totals(state)).toEqual({ completed: '0.000000', reversed: '36.000000' });
    expect(state.deposits.byStage).toMatchObject({ REVERSED: 3 });
    expect(state.deposits.byStage.COMPLETED ?? 0).toBe(0);
    // Delivered again (a retry of the service), the refund changes nothing twice.
    await customer.receiver.post({
      event: 'DEPOSIT_REJECTED',
      payload: await h.ramp.deposits.detail({ id: depositId }),
    });
    expect(totals(await customer.journey.query(journeyStateQuery))).toEqual({
      completed: '0.000000',
      reversed: '36.000000',
    });
  });
});
