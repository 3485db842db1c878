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
 * Once a payment exists, only the service's word about it ends the payout:
 * a payment the service failed ends it FAILED (`payout.failed` with the payment and the service's
 * reason); parked at the deadline, it keeps reading the payment (on each event about it, and on late
 * looks: workflows/common/parking.ts) and settles or fails when the service says so; and a cancel reads the
 * payment first and is refused while one exists that did not fail, so `payout.failed` never reports
 * a payout whose money may still arrive.
 *
 * A parked payout whose history grows (a storm of deliveries) continues as new still parked, with the
 * same attention (CarriedPayout, below).
 */
import {
  ActivityFailure,
  ApplicationFailure,
  continueAsNew,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  changeOptions,
  isAbsent,
  listSearchOptions,
  orPark,
  ParkRequest,
  PRIORITY,
  readOptions,
  serviceActivities,
} from '../common/calls';
import type { PayoutActivities, RampActivities } from '../../activities';
import { workflowNow } from '../common/timings';
import { indexStage, stageEntered } from '../common/showing';
import { type CarriedParking, type OperatorDecision, OperatorDesk, ParkedHistoryFull } from '../common/parking';
import { PartnerEventOutbox } from '../partner-events/outbox';
import {
  DEFAULT_PAYOUT_TIMINGS,
  type PayoutInput,
  type PayoutStage,
  type PayoutState,
  payoutStateQuery,
  type PayoutTimings,
} from './messages';
import { payoutPaymentEventSignal } from '../common/messages';
import { isPaymentFailed, isPaymentSettled, type PaymentRecord } from '../common/records';
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

/**
 * A parked payout hears every PAYMENT_SETTLED delivered about its payment, and someone holding the
 * webhook token can send as many as they like. So once a parked run's history has passed this (or the
 * server suggests it), the payout continues as new still parked (workflows/common/parking.ts): a payout's whole life is a few dozen events.
 */
export const PAYOUT_MAX_HISTORY_EVENTS = 1_000;

/** What a parked payout hands to its next run, each field bounded, with a version number for the code that takes it up. */
export interface CarriedPayout {
  version: 1;
  state: PayoutState;
  /** The service's record of the payment, when one was created. */
  payment?: PaymentRecord;
  parking: CarriedParking;
  /** An event about the payment came that the run had not yet looked at. */
  eventWhileParked: boolean;
}

/** @param carriedFromLastRun what the parked run this one continues as new carried */
export async function payout(input: PayoutInput, carriedFromLastRun?: CarriedPayout): Promise<PayoutState> {
  const run = new PayoutRun(input, carriedFromLastRun);
  for (;;) {
    const parked = run.carriedParking ? run.takeUpCarriedPark(run.carriedParking) : await run.payOut();
    if (!(parked instanceof ParkRequest)) return parked;
    const decision = await run.park(parked);
    if (decision instanceof ParkedHistoryFull) return await run.continueStillParked(decision);
    if (decision.kind === 'cancel') return await run.cancel(decision.reason);
    // retry, or the late fact came true: the payout runs again from where it stands.
  }
}

/** Whether a parked payout's run has grown enough to continue as new. */
function parkedHistoryFull(): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength > PAYOUT_MAX_HISTORY_EVENTS;
}

/** One payout run: its state, its handlers (the operator desk's first), and its steps. */
class PayoutRun {
  private readonly timings: PayoutTimings;
  private readonly order: Pick<PayoutInput, 'reference' | 'bankAccountId' | 'deductCurrency' | 'deductAmount'>;
  private readonly state: PayoutState;
  private readonly desk: OperatorDesk;
  /** The partner's product hears how the payout ended (partner-events/catalogue.ts). */
  private readonly events: PartnerEventOutbox;
  private payment: PaymentRecord | undefined;
  /** Parked at the settlement deadline: events make it read the payment. */
  private parkedAtDeadline = false;
  private eventWhileParked: boolean;
  /** The parking the last run handed on, until this run's park takes it up. */
  carriedParking: CarriedParking | undefined;

  constructor(
    private readonly input: PayoutInput,
    carried: CarriedPayout | undefined,
  ) {
    this.timings = { ...DEFAULT_PAYOUT_TIMINGS, ...input.timings };
    this.order = {
      reference: input.reference,
      bankAccountId: input.bankAccountId,
      deductCurrency: input.deductCurrency,
      deductAmount: input.deductAmount,
    };
    this.state = carried?.state ?? { reference: input.reference, stage: 'CREATING_PAYMENT' };
    // The desk's `retry` and `cancel` handlers first, as ever. Parked from the start when the last run
    // handed its parking on: an operator's decision is taken at once.
    this.desk = new OperatorDesk(() => this.guardCancel(), carried?.parking.attention);
    this.events = new PartnerEventOutbox({ payoutReference: input.reference });
    this.payment = carried?.payment;
    this.eventWhileParked = carried?.eventWhileParked ?? false;
    this.carriedParking = carried?.parking;

    setHandler(payoutStateQuery, () => ({
      ...this.state,
      ...(this.desk.attention ? { attention: this.desk.attention } : {}),
    }));
    // Re-delivered or late events change nothing once the payment has settled.
    setHandler(payoutPaymentEventSignal, (event) => {
      if (this.parkedAtDeadline && this.payment && event.record.id === this.payment.id) {
        this.eventWhileParked = true;
        return;
      }
      this.applyPayment(event.record);
    });
  }

  /** Creates the payment unless it exists, and follows it to its end: settled, failed, or parked (returned). */
  async payOut(): Promise<PayoutState | ParkRequest> {
    try {
      if (!this.payment) await this.createPayment();
      await this.awaitSettlement(this.payment!.id);
      if (isPaymentFailed(this.payment!.status)) return await this.paymentFailed(this.payment!);
      return await this.settlePayout(this.payment!);
    } catch (error) {
      if (!(error instanceof ParkRequest)) throw error;
      return error;
    }
  }

  private async createPayment(): Promise<void> {
    this.enterStage('CREATING_PAYMENT', 'the service to accept the payment (looked up by reference first)');
    this.applyPayment(await orPark('paying out', () => payoutActivities.ensurePayoutPayment(this.order)));
  }

  private async awaitSettlement(paymentId: string): Promise<void> {
    this.enterStage('AWAITING_SETTLEMENT', `payment ${paymentId} to settle (PAYMENT_SETTLED)`);
    const { pollIntervalSeconds, settlementDeadlineSeconds } = this.timings;
    const outcome = await waitForService({
      what: `payment ${paymentId} to settle`,
      settled: () => this.paymentEnded(),
      poll: () => this.readPayment(paymentId),
      pollIntervalMs: pollIntervalSeconds * 1000,
      // A payout is one order, settled within a day or two: its hourly polls do not back off.
      pollBackoffCapMs: pollIntervalSeconds * 1000,
      // PAYMENT_SETTLED announces a settlement, but no event a failure: polled early, a failed payment
      // ends the payout within seconds rather than at the next hourly poll (workflows/common/waiting.ts).
      unannounced: true,
      deadlineAt: workflowNow() + settlementDeadlineSeconds * 1000,
      now: workflowNow,
    });
    if (outcome === 'settled') return;
    const reason = `payment ${paymentId} did not settle within ${settlementDeadlineSeconds} s`;
    throw this.parkFollowingPayment(paymentId, reason);
  }

  /** The payment settled: the payout ends SETTLED, and the partner hears it with what was received. */
  private async settlePayout({ id: paymentId, receivedAmount, receivedCurrency }: PaymentRecord): Promise<PayoutState> {
    this.enterStage('SETTLED', `payment ${paymentId} settled`);
    this.events.emitFact(
      'payout.settled',
      {
        reference: this.input.reference,
        paymentId,
        ...(receivedAmount ? { receivedAmount } : {}),
        ...(receivedCurrency ? { receivedCurrency } : {}),
      },
      '',
    );
    await this.events.drained();
    return this.state;
  }

  /** Parked at its deadline, a payout keeps reading the payment: on each event about it at once, and on late looks. */
  private parkFollowingPayment(paymentId: string, reason: string): ParkRequest {
    this.parkedAtDeadline = true;
    return new ParkRequest(reason, 'Deadline', {
      what: `payment ${paymentId} to settle`,
      settled: () => this.paymentEnded(),
      poll: () => this.readPayment(paymentId),
      firstIntervalMs: this.timings.pollIntervalSeconds * 1000,
      hints: {
        pending: () => this.eventWhileParked,
        look: async () => {
          this.eventWhileParked = false;
          await this.readPayment(paymentId);
        },
      },
    });
  }

  /** The park the last run handed on, as it parked: following its payment when it had late looks. */
  takeUpCarriedPark({ attention, lateLooks }: CarriedParking): ParkRequest {
    return lateLooks && this.payment
      ? this.parkFollowingPayment(this.payment.id, attention.reason)
      : ParkRequest.carried(attention);
  }

  /** Waits in NEEDS_ATTENTION for an operator or the late fact; or the history is full and the parking is handed on. */
  async park(parked: ParkRequest): Promise<OperatorDecision | ParkedHistoryFull> {
    const carried = this.carriedParking;
    let decision: OperatorDecision;
    try {
      const stage = carried?.attention.stage ?? this.state.stage;
      decision = await this.desk.park(
        stage,
        parked,
        () => this.enterStage('NEEDS_ATTENTION', parked.reason),
        undefined,
        {
          historyFull: parkedHistoryFull,
          ...(carried ? { carried } : {}),
        },
      );
    } catch (error) {
      if (!(error instanceof ParkedHistoryFull)) throw error;
      return error;
    }
    this.carriedParking = undefined;
    this.parkedAtDeadline = false;
    this.eventWhileParked = false;
    return decision;
  }

  /** Continues as new still parked, carrying what it holds. */
  async continueStillParked({ parking }: ParkedHistoryFull): Promise<never> {
    // A parked payout has emitted nothing, but its outbox is recorded before the run ends all the same.
    await this.events.drained();
    return await continueAsNew<typeof payout>(this.input, {
      version: 1,
      state: { ...this.state },
      ...(this.payment ? { payment: this.payment } : {}),
      parking,
      eventWhileParked: this.eventWhileParked,
    });
  }

  /** An operator's cancel, let through by guardCancel. */
  async cancel(reason: string): Promise<PayoutState> {
    this.state.cancelledBecause = reason;
    // A cancel the guard let through because the payment failed: the service's word is the outcome.
    if (this.payment && isPaymentFailed(this.payment.status)) return await this.paymentFailed(this.payment);
    return await this.end('CANCELLED', reason);
  }

  /**
   * The desk's guard: refuses a cancel while a payment exists at the service that did not fail: it may
   * still settle, and `payout.failed` for it would have the partner pay twice. Reads the payment (by
   * id, or by the reference when the payout holds none) rather than trusting what the payout last saw.
   */
  private async guardCancel(): Promise<void> {
    const byReference = () =>
      payoutActivities.findPayoutPayment.executeWithOptions(
        listSearchOptions(`look the payment ${this.input.reference} up before cancelling`),
        [this.input.reference],
      );
    let record: PaymentRecord | null;
    try {
      // A payment the service no longer has by its id is looked for by the reference, like one never seen.
      record = this.payment
        ? await rampActivities
            .getPayment(this.payment.id)
            .catch((error: unknown) => (isAbsent(error) ? byReference() : Promise.reject(error)))
        : await byReference();
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      throw paymentUnread(error);
    }
    if (!record) return;
    this.applyPayment(record);
    if (isPaymentFailed(record.status)) return;
    throw paymentExists(record);
  }

  /** The service failed the payment: its reason (free text) goes to the partner and the state, not to the Web UI's details. */
  private async paymentFailed({ id, status, failureReason }: PaymentRecord): Promise<PayoutState> {
    const said = `the service reported payment ${id} ${status}`;
    return this.end('FAILED', failureReason ?? said, said);
  }

  /** Ends the payout unpaid; `reason` goes to the partner (and `details`, not the service's free text, to the Web UI). */
  private async end(stage: 'FAILED' | 'CANCELLED', reason: string, details = reason): Promise<PayoutState> {
    this.enterStage(stage, details);
    const failedPayment = this.payment && isPaymentFailed(this.payment.status) ? this.payment : undefined;
    this.events.emitFact(
      'payout.failed',
      {
        reference: this.input.reference,
        reason,
        ...(failedPayment ? { paymentId: failedPayment.id } : {}),
      },
      '',
    );
    await this.events.drained();
    return this.state;
  }

  /** Sets the stage, counts it, indexes it and shows it with what the payout waits for. */
  private enterStage(stage: PayoutStage, waitingFor: string): void {
    stageEntered(stage, undefined, this.order);
    this.state.stage = stage;
    indexStage(stage);
    setCurrentDetails(`**${stage}**: ${waitingFor}`);
  }

  private applyPayment(record: PaymentRecord): void {
    if (this.payment && (record.id !== this.payment.id || isPaymentSettled(this.payment.status))) return;
    this.payment = record;
    this.state.paymentId = record.id;
    this.state.paymentStatus = record.status;
    if (record.receivedAmount) this.state.receivedAmount = record.receivedAmount;
    if (record.receivedCurrency) this.state.receivedCurrency = record.receivedCurrency;
    if (record.failureReason) this.state.paymentFailureReason = record.failureReason;
  }

  private async readPayment(paymentId: string): Promise<void> {
    this.applyPayment(await rampActivities.getPayment(paymentId));
  }

  /** Whether the service has had its last word on the payment: settled, or (under the patch) failed. */
  private paymentEnded(): boolean {
    const { payment } = this;
    return payment !== undefined && (isPaymentSettled(payment.status) || isPaymentFailed(payment.status));
  }
}

/** The guard could not read the payment: the cancel is refused, and may be sent again. */
function paymentUnread(error: ActivityFailure): ApplicationFailure {
  return ApplicationFailure.nonRetryable(
    `cancel refused: the payment could not be read from the service (${error.cause?.message ?? error.message}); try again`,
    'PaymentUnread',
  );
}

/** A payment that did not fail exists at the service: cancelling would report a payout whose money may arrive. */
function paymentExists(record: PaymentRecord): ApplicationFailure {
  const next = isPaymentSettled(record.status)
    ? 'it settled, and the payout settles by itself'
    : 'it may still settle; wait for it, or `retry` to follow it';
  return ApplicationFailure.nonRetryable(
    `cancel refused: payment ${record.id} exists at the service (${record.status}): ${next}`,
    'PaymentExists',
  );
}
