/**
 * A payout from the partner's own balance to a customer's registered bank account,
 * `payout/<partner reference>`: CREATING_PAYMENT → AWAITING_SETTLEMENT → SETTLED (or FAILED).
 *
 * The payment is created once: the create looks the payment up by the partner's reference first, so
 * a retry after a crash or an outcome-unknown answer finds the payment instead of paying twice. The
 * service's refusal of the create (a short balance, a bank account the service does not know) parks
 * the payout in NEEDS_ATTENTION with the service's own words; an operator tops the balance up and
 * sends `retry`, or ends it with `cancel`. The wait for settlement has the three exits of every wait:
 * the PAYMENT_SETTLED event, a poll, and a deadline that parks.
 *
 * Once a payment exists, only the service's word about it ends the payout (PAYOUT_FOLLOWS_ITS_PAYMENT):
 * a payment the service failed ends it FAILED (`payout.failed` with the payment and the service's
 * reason); parked at the deadline, it keeps reading the payment (on each event about it, and on late
 * looks: workflows/common/operator.ts) and settles or fails when the service says so; and a cancel reads the
 * payment first and is refused while one exists that did not fail, so `payout.failed` never reports
 * a payout whose money may still arrive.
 *
 * A parked payout whose history grows (a storm of deliveries) continues as new still parked, with the
 * same attention (workflows/payout/carry.ts).
 */
import {
  ActivityFailure,
  ApplicationFailure,
  continueAsNew,
  setCurrentDetails,
  setHandler,
} from '@temporalio/workflow';
import { PRIORITY, serviceActivities } from '../common/service-activities';
import type { PayoutActivities, RampActivities } from '../../activities';
import { changeOptions, listSearchOptions, readOptions } from '../common/activity-options';
import { workflowNow } from '../common/clock';
import { indexStage } from '../common/indexing';
import { OperatorDesk, ParkedHistoryFull, type OperatorDecision } from '../common/operator';
import { PartnerEventOutbox } from '../partner-events/outbox';
import { PAYOUT_FOLLOWS_ITS_PAYMENT, takesPatch } from '../common/patches';
import { parkedPayoutHistoryFull, type CarriedPayout } from './carry';
import {
  DEFAULT_PAYOUT_TIMINGS,
  payoutPaymentEventSignal,
  payoutStateQuery,
  type PayoutInput,
  type PayoutStage,
  type PayoutState,
} from './messages';
import { isPaymentFailed, isPaymentSettled, type PaymentRecord } from '../common/records';
import { isAbsent, orPark, ParkRequest } from '../common/service-failures';
import { stageEntered } from '../common/stage-metrics';
import { waitForService } from '../common/waiting';

/**
 * The service's refusal of the create (a FAILED answer to the POST: a short balance, most often) is
 * `Refused` at once (activities/payout-activities.ts) and parks rather than retrying for an hour: it
 * stays refused until someone tops the balance up. Every other failure, a read's FAILED included,
 * retries: after a POST that succeeded, the retry finds the payment by its reference.
 */
const payoutActivities = serviceActivities<PayoutActivities>(
  changeOptions('pay out from the partner balance'),
  () => PRIORITY.HIGH,
);
const rampActivities = serviceActivities<RampActivities>(readOptions('poll the payment'), () => PRIORITY.HIGH);

/** @param carriedFromLastRun what the parked run this one continues as new carried (workflows/payout/carry.ts) */
export async function payout(input: PayoutInput, carriedFromLastRun?: CarriedPayout): Promise<PayoutState> {
  const timings = { ...DEFAULT_PAYOUT_TIMINGS, ...input.timings };
  const order = {
    reference: input.reference,
    bankAccountId: input.bankAccountId,
    deductCurrency: input.deductCurrency,
    deductAmount: input.deductAmount,
  };
  const state: PayoutState = carriedFromLastRun?.state ?? { reference: input.reference, stage: 'CREATING_PAYMENT' };
  // Parked from the start when the last run handed its parking on: an operator's decision is taken at once.
  const desk = new OperatorDesk(checkCancel, carriedFromLastRun?.parking.attention);
  /** The partner's product hears how the payout ended (partner-events/catalogue.ts). */
  const events = new PartnerEventOutbox({ payoutReference: input.reference });
  let payment: PaymentRecord | undefined = carriedFromLastRun?.payment;
  /** Parked at the settlement deadline (only under PAYOUT_FOLLOWS_ITS_PAYMENT): events make it read the payment. */
  let parkedAtDeadline = false;
  let eventWhileParked = carriedFromLastRun?.eventWhileParked ?? false;
  /** The parking the last run handed on, until this run's park takes it up. */
  let carriedParking = carriedFromLastRun?.parking;

  setHandler(payoutStateQuery, () => ({ ...state, ...(desk.attention ? { attention: desk.attention } : {}) }));
  // Re-delivered or late events change nothing once the payment has settled.
  setHandler(payoutPaymentEventSignal, (event) => {
    if (parkedAtDeadline && payment && event.record.id === payment.id) {
      eventWhileParked = true;
      return;
    }
    applyPayment(event.record);
  });

  function applyPayment(record: PaymentRecord): void {
    if (payment && (record.id !== payment.id || isPaymentSettled(payment.status))) return;
    payment = record;
    state.paymentId = record.id;
    state.paymentStatus = record.status;
    if (record.receivedAmount) state.receivedAmount = record.receivedAmount;
    if (record.receivedCurrency) state.receivedCurrency = record.receivedCurrency;
    if (record.failureReason) state.paymentFailureReason = record.failureReason;
  }

  const readPayment = async (paymentId: string): Promise<void> =>
    applyPayment(await rampActivities.getPayment(paymentId));
  /** Whether the service has had its last word on the payment: settled, or (under the patch) failed. */
  const paymentEnded = (followsPayment: boolean): boolean =>
    payment !== undefined && (isPaymentSettled(payment.status) || (followsPayment && isPaymentFailed(payment.status)));

  function enter(stage: PayoutStage, waitingFor: string): void {
    stageEntered(stage, undefined, order);
    state.stage = stage;
    indexStage(stage);
    setCurrentDetails(`**${stage}**: ${waitingFor}`);
  }

  /**
   * Refuses a cancel while a payment exists at the service that did not fail: it may still settle,
   * and `payout.failed` for it would have the partner pay twice. Reads the payment (by id, or by the
   * reference when the payout holds none) rather than trusting what the payout last saw.
   */
  async function checkCancel(): Promise<void> {
    if (!takesPatch(PAYOUT_FOLLOWS_ITS_PAYMENT)) return;
    const byReference = () =>
      payoutActivities.findPayoutPayment.executeWithOptions(
        listSearchOptions(`look the payment ${input.reference} up before cancelling`),
        [input.reference],
      );
    let record: PaymentRecord | null;
    try {
      // A payment the service no longer has by its id is looked for by the reference, like one never seen.
      record = payment
        ? await rampActivities
            .getPayment(payment.id)
            .catch((error: unknown) => (isAbsent(error) ? byReference() : Promise.reject(error)))
        : await byReference();
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      throw ApplicationFailure.nonRetryable(
        `cancel refused: the payment could not be read from the service (${error.cause?.message ?? error.message}); try again`,
        'PaymentUnread',
      );
    }
    if (!record) return;
    applyPayment(record);
    if (isPaymentFailed(record.status)) return;
    const next = isPaymentSettled(record.status)
      ? 'it settled, and the payout settles by itself'
      : 'it may still settle; wait for it, or `retry` to follow it';
    throw ApplicationFailure.nonRetryable(
      `cancel refused: payment ${record.id} exists at the service (${record.status}): ${next}`,
      'PaymentExists',
    );
  }

  async function createPayment(): Promise<void> {
    enter('CREATING_PAYMENT', 'the service to accept the payment (looked up by reference first)');
    applyPayment(await orPark('paying out', () => payoutActivities.ensurePayoutPayment(order)));
  }

  async function awaitSettlement(paymentId: string): Promise<void> {
    const followsPayment = takesPatch(PAYOUT_FOLLOWS_ITS_PAYMENT);
    enter('AWAITING_SETTLEMENT', `payment ${paymentId} to settle (PAYMENT_SETTLED)`);
    const what = `payment ${paymentId} to settle`;
    const outcome = await waitForService({
      what,
      settled: () => paymentEnded(followsPayment),
      poll: () => readPayment(paymentId),
      pollIntervalMs: timings.pollIntervalSeconds * 1000,
      // A payout is one order, settled within a day or two: its hourly polls do not back off.
      pollBackoffCapMs: timings.pollIntervalSeconds * 1000,
      // PAYMENT_SETTLED announces a settlement, but no event a failure: polled early, a failed payment
      // ends the payout within seconds rather than at the next hourly poll (workflows/common/waiting.ts).
      unannounced: true,
      deadlineAt: workflowNow() + timings.settlementDeadlineSeconds * 1000,
      now: workflowNow,
    });
    if (outcome === 'settled') return;
    const reason = `payment ${paymentId} did not settle within ${timings.settlementDeadlineSeconds} s`;
    if (!followsPayment) throw new ParkRequest(reason, 'Deadline');
    throw parkedFollowingPayment(paymentId, reason);
  }

  /** Parked at its deadline, a payout keeps reading the payment: on each event about it at once, and on late looks. */
  function parkedFollowingPayment(paymentId: string, reason: string): ParkRequest {
    parkedAtDeadline = true;
    return new ParkRequest(reason, 'Deadline', {
      what: `payment ${paymentId} to settle`,
      settled: () => paymentEnded(true),
      poll: () => readPayment(paymentId),
      firstIntervalMs: timings.pollIntervalSeconds * 1000,
      hints: {
        pending: () => eventWhileParked,
        look: async () => {
          eventWhileParked = false;
          await readPayment(paymentId);
        },
      },
    });
  }

  /** The park the last run handed on, as it parked: following its payment when it had late looks. */
  function carriedPark({ attention, lateLooks }: NonNullable<typeof carriedParking>): ParkRequest {
    return lateLooks && payment
      ? parkedFollowingPayment(payment.id, attention.reason)
      : new ParkRequest(attention.reason, attention.errorType);
  }

  /** Ends the payout unpaid; `reason` goes to the partner (and `details`, not the service's free text, to the Web UI). */
  async function end(stage: 'FAILED' | 'CANCELLED', reason: string, details = reason): Promise<PayoutState> {
    enter(stage, details);
    const failedPayment = payment && isPaymentFailed(payment.status) ? payment : undefined;
    events.emit('payout.failed', {
      reference: input.reference,
      reason,
      ...(failedPayment ? { paymentId: failedPayment.id } : {}),
    });
    await events.drained();
    return state;
  }

  /** The service failed the payment: its reason (free text) goes to the partner and the state, not to the Web UI's details. */
  async function paymentFailed({ id, status, failureReason }: PaymentRecord): Promise<PayoutState> {
    const said = `the service reported payment ${id} ${status}`;
    return end('FAILED', failureReason ?? said, said);
  }

  for (;;) {
    let parked: ParkRequest;
    if (carriedParking) {
      parked = carriedPark(carriedParking);
    } else {
      try {
        if (!payment) await createPayment();
        await awaitSettlement(payment!.id);
        if (isPaymentFailed(payment!.status)) return await paymentFailed(payment!);
        enter('SETTLED', `payment ${payment!.id} settled`);
        const { id: paymentId, receivedAmount, receivedCurrency } = payment!;
        events.emit('payout.settled', {
          reference: input.reference,
          paymentId,
          ...(receivedAmount ? { receivedAmount } : {}),
          ...(receivedCurrency ? { receivedCurrency } : {}),
        });
        await events.drained();
        return state;
      } catch (error) {
        if (!(error instanceof ParkRequest)) throw error;
        parked = error;
      }
    }
    let decision: OperatorDecision;
    try {
      const stage = carriedParking?.attention.stage ?? state.stage;
      decision = await desk.park(stage, parked, () => enter('NEEDS_ATTENTION', parked.reason), undefined, {
        historyFull: parkedPayoutHistoryFull,
        ...(carriedParking ? { carried: carriedParking } : {}),
      });
    } catch (error) {
      if (!(error instanceof ParkedHistoryFull)) throw error;
      // A parked payout has emitted nothing, but its outbox is recorded before the run ends all the same.
      await events.drained();
      return await continueAsNew<typeof payout>(input, {
        version: 1,
        state: { ...state },
        ...(payment ? { payment } : {}),
        parking: error.parking,
        eventWhileParked,
      });
    }
    carriedParking = undefined;
    parkedAtDeadline = false;
    eventWhileParked = false;
    if (decision.kind === 'cancel') {
      state.cancelledBecause = decision.reason;
      // A cancel the guard let through because the payment failed: the service's word is the outcome.
      if (payment && isPaymentFailed(payment.status)) return await paymentFailed(payment);
      return await end('CANCELLED', decision.reason);
    }
  }
}
