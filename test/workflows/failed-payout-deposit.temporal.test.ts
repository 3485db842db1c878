/**
 * An offramp deposit whose payout the service fails: the service announces no failed payment, so
 * only the deposit's poll finds it. The deposit parks at once with the payment and its status
 * (PaymentFailed), instead of polling a payment that will never settle until its step deadline, and
 * the journey shows it parked. A retry reads the payment again and parks again while it stays failed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shownDeposit } from '../../workflows/journey/board';
import type { depositLifecycle } from '../../workflows/deposit/workflow';
import { depositStateQuery, depositWorkflowId, retryUpdate } from '../../workflows/common/messages';
import { type JourneyHarness, startJourneyHarness } from '../support/journey-harness';
import { type OfframpByWebhooks, startOfframpByWebhooks } from '../webhooks/support/offramp-by-webhooks';

// Polls every few seconds; a step's deadline a day away: a park before it is the failed payment's.
const POLLING_DEPOSITS = { pollIntervalSeconds: 2, stepDeadlineSeconds: 86_400, notFoundGraceSeconds: 1 };

let h: JourneyHarness;
let customer: OfframpByWebhooks;

beforeAll(async () => {
  h = await startJourneyHarness({ clock: { frozen: true } }, { depositTimings: POLLING_DEPOSITS });
  customer = await startOfframpByWebhooks(h, POLLING_DEPOSITS);
});
afterAll(async () => {
  await customer?.receiver.close();
  await h?.close();
});

describe('an offramp deposit whose payout the service fails', () => {
  it('parks PaymentFailed, naming the payment and its status, long before its step deadline; a retry parks it again', async () => {
    const { deliver, tradeOf, journey } = customer;
    const depositId = await customer.pay('14.000000');
    await deliver();
    await h.waitForDeposit(depositId, (s) => s.stage === 'TRADE_CREATED');
    await h.control.settleTrade((await tradeOf(depositId)).id);
    await deliver();
    await h.waitForDeposit(depositId, (s) => s.stage === 'TRADE_SETTLED');
    const { paymentId } = await tradeOf(depositId);
    await h.control.failPayment(paymentId!, 'beneficiary account closed');

    const handle = h.client.workflow.getHandle<typeof depositLifecycle>(depositWorkflowId(depositId));
    const parked = await h.waitForDeposit(depositId, (s) => s.stage === 'NEEDS_ATTENTION');
    expect(parked.attention).toMatchObject({
      stage: 'TRADE_SETTLED',
      errorType: 'PaymentFailed',
      reason: `payment ${paymentId} ended FAILED`,
    });
    const state = await h.waitForJourney(
      journey,
      (s) => shownDeposit(s.deposits, depositId)?.stage === 'NEEDS_ATTENTION',
    );
    expect(state.deposits.completedTotals.USDT).toBeUndefined();

    await handle.executeUpdate(retryUpdate, { args: [{}] });
    const again = await h.waitForDeposit(
      depositId,
      (s) => s.stage === 'NEEDS_ATTENTION' && s.attention?.since !== parked.attention?.since,
    );
    expect(again.attention).toMatchObject({ errorType: 'PaymentFailed' });
    expect((await handle.query(depositStateQuery)).stage).toBe('NEEDS_ATTENTION');
  });
});
