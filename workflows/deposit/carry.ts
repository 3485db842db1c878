/**
 * When a deposit (workflows/deposit/workflow.ts) continues as new, and what it hands to its next run.
 *
 * A deposit's history grows with every delivery, and someone holding the webhook token can send as
 * many as they like (forged hints each cost a signal and a workflow task, and a look when they claim
 * news). So a wait of a deposit ends the run once the history has passed DEPOSIT_MAX_HISTORY_EVENTS
 * (or the server suggests it), and the run continues as new at the same step, after its handlers
 * have finished, carrying what it holds: every field below is bounded whatever was delivered.
 * Behind DEPOSIT_CONTINUES_AS_NEW, asked only when a run has grown that far. A parked deposit does the
 * same, carrying its parking (PARKED_CONTINUES_AS_NEW, workflows/deposit/resume.ts).
 */
import { allHandlersFinished, condition, continueAsNew, workflowInfo } from '@temporalio/workflow';
import type { AppliedKeys } from '../common/applied-keys';
import type { CarriedDepositHints, DepositHints } from './hints';
import type { DepositLifecycleInput, DepositLifecycleRequest } from '../common/deposit-input';
import type { DepositJourneyLink } from './journey-link';
import type { DepositLedger } from './ledger';
import type { CarriedReports, JourneyReporter } from './report';
import type { DepositStepClock } from './step-clock';
import type { DepositStage, DepositState } from '../common/messages';
import type { CarriedParking } from '../common/operator';
import { DEPOSIT_CONTINUES_AS_NEW, PARKED_CONTINUES_AS_NEW, takesPatch } from '../common/patches';
import type { DepositRecord, PaymentRecord, TradeRecord } from '../common/records';

/**
 * The history a deposit run grows to before its next wait continues as new. A deposit without a
 * storm of deliveries stays well under it (a few hundred events over its whole life).
 */
export const DEPOSIT_MAX_HISTORY_EVENTS = 1_000;

/** Thrown by a wait (workflows/deposit/waits.ts) when the run should continue as new. */
export class DepositHistoryFull extends Error {}

/** Whether the run has grown enough to continue as new (the patch is asked only once it has). */
export function depositHistoryFull(): boolean {
  return historyPastLimit() && takesPatch(DEPOSIT_CONTINUES_AS_NEW);
}

/** The same for a parked deposit (workflows/deposit/resume.ts), behind a patch of its own. */
export function parkedDepositHistoryFull(): boolean {
  return historyPastLimit() && takesPatch(PARKED_CONTINUES_AS_NEW);
}

function historyPastLimit(): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength > DEPOSIT_MAX_HISTORY_EVENTS;
}

/** What a deposit hands to its next run, with a version number for the code that takes it up. */
export interface CarriedDeposit {
  version: 1;
  /** The step to run again (the one whose wait ended the run, or the one parked). */
  stage: DepositStage;
  /** Set when the run was parked (PARKED_CONTINUES_AS_NEW): the next run is parked at once with it. */
  parking?: CarriedParking;
  verifiesPayloads: boolean;
  ledger: {
    deposit?: DepositRecord;
    trade?: TradeRecord;
    payment?: PaymentRecord;
    tradeFromPayload: boolean;
    paymentFromPayload: boolean;
    ownRecordRead: boolean;
    confirmedOnce: boolean;
    attachmentSubmitted: boolean;
    state: DepositState;
  };
  link: { externalId?: string; journeyId?: string; reportedStage?: DepositStage; served: boolean };
  /** The deadline of the step in progress (absolute workflow time): a new run does not extend it. */
  stepDeadlineAt?: number;
  /** The last applied event keys (workflows/common/applied-keys.ts, at most its window). */
  appliedEventKeys: string[];
  reports: CarriedReports;
  /** Pending and refused hints (workflows/common/trust.ts: a few ids each, each of bounded length). */
  hints: CarriedDepositHints;
}

/**
 * The deposit workflow's signature, as continue-as-new starts it (workflows/deposit/workflow.ts), written here
 * rather than imported so that the run and what it carries do not import each other.
 */
type DepositLifecycle = (request: DepositLifecycleRequest, carried?: CarriedDeposit) => Promise<unknown>;

/** The parts of a deposit's course (workflows/deposit/course.ts) that a run hands on. */
export interface CarryingCourse {
  readonly verifiesPayloads: boolean;
  readonly ledger: DepositLedger;
  readonly link: DepositJourneyLink;
  readonly clock: DepositStepClock;
  readonly applied: AppliedKeys;
  readonly reporter: JourneyReporter;
  readonly hints: DepositHints;
}

function carry(course: CarryingCourse, stage: DepositStage, parking?: CarriedParking): CarriedDeposit {
  const { ledger, link } = course;
  return {
    version: 1,
    stage,
    ...(parking ? { parking } : {}),
    verifiesPayloads: course.verifiesPayloads,
    ledger: {
      ...(ledger.deposit ? { deposit: ledger.deposit } : {}),
      ...(ledger.trade ? { trade: ledger.trade } : {}),
      ...(ledger.payment ? { payment: ledger.payment } : {}),
      tradeFromPayload: ledger.tradeFromPayload,
      paymentFromPayload: ledger.paymentFromPayload,
      ownRecordRead: ledger.ownRecordRead,
      confirmedOnce: ledger.confirmedOnce,
      attachmentSubmitted: ledger.attachmentSubmitted,
      state: { ...ledger.state },
    },
    link: {
      ...(link.externalId !== undefined ? { externalId: link.externalId } : {}),
      ...(link.journeyId !== undefined ? { journeyId: link.journeyId } : {}),
      ...(link.reportedStage !== undefined ? { reportedStage: link.reportedStage } : {}),
      served: link.served,
    },
    ...(course.clock.carriedDeadline !== undefined ? { stepDeadlineAt: course.clock.carriedDeadline } : {}),
    appliedEventKeys: course.applied.carry(),
    reports: course.reporter.carry(),
    hints: course.hints.carry(),
  };
}

/** A new run takes up what the previous one held (workflows/deposit/course.ts, before any handler runs). */
export function takeUpCarried(carried: CarriedDeposit, ledger: DepositLedger, link: DepositJourneyLink): void {
  const held = carried.ledger;
  ledger.deposit = held.deposit;
  ledger.trade = held.trade;
  ledger.payment = held.payment;
  ledger.tradeFromPayload = held.tradeFromPayload;
  ledger.paymentFromPayload = held.paymentFromPayload;
  ledger.ownRecordRead = held.ownRecordRead;
  ledger.confirmedOnce = held.confirmedOnce;
  ledger.attachmentSubmitted = held.attachmentSubmitted;
  Object.assign(ledger.state, held.state);
  link.externalId = carried.link.externalId;
  link.journeyId = carried.link.journeyId;
  link.reportedStage = carried.link.reportedStage;
  link.served = carried.link.served;
}

/**
 * Lets running handlers (an attachment being submitted) finish, then continues as new at `stage`
 * (parked there when `parking` is given).
 * The next run's input is the first run's, less what it no longer needs: the starter's record (the
 * ledger carries the service's) and a reversal's mark (a reversal never waits, so never gets here).
 */
export async function continueDepositAsNew(
  course: CarryingCourse,
  input: DepositLifecycleInput,
  stage: DepositStage,
  parking?: CarriedParking,
): Promise<never> {
  await condition(allHandlersFinished);
  const next = {
    depositId: input.depositId,
    ...(input.externalId !== undefined ? { externalId: input.externalId } : {}),
    ...(input.timings !== undefined ? { timings: input.timings } : {}),
  };
  return continueAsNew<DepositLifecycle>(next, carry(course, stage, parking));
}
