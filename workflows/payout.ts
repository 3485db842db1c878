/**
 * A payout from the partner's own balance to a customer's registered bank account,
 * `payout/<partner reference>`: CREATING_PAYMENT → AWAITING_SETTLEMENT → SETTLED.
 *
 * The payment is created once: the create looks the payment up by the partner's reference first, so
 * a retry after a crash or an outcome-unknown answer finds the payment instead of paying twice. A
 * refusal (a short balance, a bank account the service does not know) parks the payout in
 * NEEDS_ATTENTION with the service's own words; an operator tops the balance up and sends `retry`, or
 * ends it with `cancel`. The wait for settlement has the three exits of every wait: the
 * PAYMENT_SETTLED event, a poll, and a deadline that parks.
 */
import { setCurrentDetails, setHandler } from '@temporalio/workflow';
import { PRIORITY, serviceActivities } from './service-activities';
import type { PayoutActivities, RampActivities } from '../activities';
import { ACTIVITY_RETRY, changeOptions, readOptions } from './activity-options';
import { workflowNow } from './clock';
import { indexStage } from './indexing';
import { OperatorDesk } from './operator';
import { PartnerEventOutbox } from './partner-event-outbox';
import { DEFAULT_PAYOUT_TIMINGS, payoutPaymentEventSignal, payoutStateQuery, type PayoutInput, type PayoutStage, type PayoutState } from './payout-messages';
import { isPaymentSettled, type PaymentRecord } from './records';
import { orPark, ParkRequest } from './service-failures';
import { stageEntered } from './stage-metrics';
import { waitForService } from './waiting';

/**
 * A payout the service refused (422 FAILED: a short balance, most often) parks at once rather than
 * retrying for an hour: it stays refused until someone tops the balance up.
 */
const payoutActivities = serviceActivities<PayoutActivities>(
  {
    ...changeOptions('pay out from the partner balance'),
    retry: { ...ACTIVITY_RETRY, nonRetryableErrorTypes: [...(ACTIVITY_RETRY.nonRetryableErrorTypes ?? []), 'Failed'] },
  },
  () => PRIORITY.HIGH,
);
const rampActivities = serviceActivities<RampActivities>(readOptions('poll the payment'), () => PRIORITY.HIGH);

export async function payout(input: PayoutInput): Promise<PayoutState> {
  const timings = { ...DEFAULT_PAYOUT_TIMINGS, ...input.timings };
  const order = { reference: input.reference, bankAccountId: input.bankAccountId, deductCurrency: input.deductCurrency, deductAmount: input.deductAmount };
  const state: PayoutState = { reference: input.reference, stage: 'CREATING_PAYMENT' };
  const desk = new OperatorDesk();
  /** The partner's product hears how the payout ended (partner-events/catalogue.ts). */
  const events = new PartnerEventOutbox({ payoutReference: input.reference });
  let payment: PaymentRecord | undefined;

  setHandler(payoutStateQuery, () => ({ ...state, ...(desk.attention ? { attention: desk.attention } : {}) }));
  // Re-delivered or late events change nothing once the payment has settled.
  setHandler(payoutPaymentEventSignal, (event) => applyPayment(event.record));

  function applyPayment(record: PaymentRecord): void {
    if (payment && (record.id !== payment.id || isPaymentSettled(payment.status))) return;
    payment = record;
    state.paymentId = record.id;
    state.paymentStatus = record.status;
    if (record.receivedAmount) state.receivedAmount = record.receivedAmount;
    if (record.receivedCurrency) state.receivedCurrency = record.receivedCurrency;
  }

  function enter(stage: PayoutStage, waitingFor: string): void {
    stageEntered(stage, undefined, order);
    state.stage = stage;
    indexStage(stage);
    setCurrentDetails(`**${stage}**: ${waitingFor}`);
  }

  async function createPayment(): Promise<void> {
    enter('CREATING_PAYMENT', 'the service to accept the payment (looked up by reference first)');
    applyPayment(await orPark('paying out', () => payoutActivities.ensurePayoutPayment(order)));
  }

  async function awaitSettlement(paymentId: string): Promise<void> {
    enter('AWAITING_SETTLEMENT', `payment ${paymentId} to settle (PAYMENT_SETTLED)`);
    const outcome = await waitForService({
      what: `payment ${paymentId} to settle`,
      settled: () => payment !== undefined && isPaymentSettled(payment.status),
      poll: async () => applyPayment(await rampActivities.getPayment(paymentId)),
      pollIntervalMs: timings.pollIntervalSeconds * 1000,
      // A payout is one order, settled within a day or two: its hourly polls do not back off.
      pollBackoffCapMs: timings.pollIntervalSeconds * 1000,
      deadlineAt: workflowNow() + timings.settlementDeadlineSeconds * 1000,
      now: workflowNow,
    });
    if (outcome !== 'settled') throw new ParkRequest(`payment ${paymentId} did not settle within ${timings.settlementDeadlineSeconds} s`, 'Deadline');
  }

  for (;;) {
    try {
      if (!payment) await createPayment();
      await awaitSettlement(payment!.id);
      enter('SETTLED', `payment ${payment!.id} settled`);
      const { id: paymentId, receivedAmount, receivedCurrency } = payment!;
      events.emit('payout.settled', { reference: input.reference, paymentId, ...(receivedAmount ? { receivedAmount } : {}), ...(receivedCurrency ? { receivedCurrency } : {}) });
      await events.drained();
      return state;
    } catch (error) {
      if (!(error instanceof ParkRequest)) throw error;
      const decision = await desk.park(state.stage, error, () => enter('NEEDS_ATTENTION', error.reason));
      if (decision.kind === 'cancel') {
        state.cancelledBecause = decision.reason;
        enter('CANCELLED', decision.reason);
        events.emit('payout.failed', { reference: input.reference, reason: decision.reason });
        await events.drained();
        return state;
      }
    }
  }
}
