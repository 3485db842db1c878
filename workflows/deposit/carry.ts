/**
 * What a deposit (workflows/deposit/workflow.ts) hands to its next run when it continues as new, as
 * plain data: the run (workflows/deposit/run.ts) decides when, and carries and takes up through here.
 *
 * A deposit's history grows with every delivery, and someone holding the webhook token can send as
 * many as they like (forged hints each cost a signal and a workflow task, and a look when they claim
 * news). So a wait of a deposit ends the run once the history has passed DEPOSIT_MAX_HISTORY_EVENTS
 * (or the server suggests it), and the run continues as new at the same step, after its handlers
 * have finished, carrying what it holds: every field below is bounded whatever was delivered. A
 * parked deposit does the same, carrying its parking.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { AppliedKeys, DepositRecord, PaymentRecord, TradeRecord } from '../common/records';
import type { DepositLifecycleInput } from '../schemas';
import type { DepositStage, DepositState } from '../common/messages';
import type { CarriedParking } from '../common/parking';
import type { CarriedDepositHints, DepositHints, DepositJourneyLink, DepositLedger } from './ledger';
import type { DepositStepClock } from '../common/waiting';

/**
 * The history a deposit run grows to before its next wait continues as new. A deposit without a
 * storm of deliveries stays well under it (a few hundred events over its whole life).
 */
export const DEPOSIT_MAX_HISTORY_EVENTS = 1_000;

/** Where a deposit's reports to its journey stand, for its next run: its keys go on from there. */
export interface CarriedReports {
  run: string;
  offered: number;
}

/**
 * What a deposit hands to its next run, with a version number for the code that takes it up. Version 2
 * is 1.0's: version 1 (0.x) also carried whether the run verified payloads and whether its trade and
 * payment came from one. 0.x deposits drain on their own workers and never reach 1.0 code.
 */
export interface CarriedDeposit {
  version: 2;
  /** The step to run again (the one whose wait ended the run, or the one parked). */
  stage: DepositStage;
  /** Set when the run was parked: the next run is parked at once with it. */
  parking?: CarriedParking;
  ledger: {
    deposit?: DepositRecord;
    trade?: TradeRecord;
    payment?: PaymentRecord;
    ownRecordRead: boolean;
    confirmedOnce: boolean;
    attachmentSubmitted: boolean;
    state: DepositState;
  };
  link: { externalId?: string; journeyId?: string; reportedStage?: DepositStage; served: boolean };
  /** The deadline of the step in progress (absolute workflow time): a new run does not extend it. */
  stepDeadlineAt?: number;
  /** The last applied event keys (workflows/common/records.ts, at most its window). */
  appliedEventKeys: string[];
  reports: CarriedReports;
  /** Pending and refused hints (workflows/common/trust.ts: a few ids each, each of bounded length). */
  hints: CarriedDepositHints;
}

/** The parts of a deposit's run (workflows/deposit/run.ts) that it hands on. */
export interface CarryingRun {
  readonly ledger: DepositLedger;
  readonly link: DepositJourneyLink;
  readonly clock: DepositStepClock;
  readonly applied: AppliedKeys;
  readonly reporter: { carry(): CarriedReports };
  readonly hints: DepositHints;
}

/** What `run` hands to its next run, to continue at `stage` (parked there when `parking` is given). */
export function carry(run: CarryingRun, stage: DepositStage, parking?: CarriedParking): CarriedDeposit {
  const { ledger, link } = run;
  return {
    version: 2,
    stage,
    ...(parking ? { parking } : {}),
    ledger: {
      ...(ledger.deposit ? { deposit: ledger.deposit } : {}),
      ...(ledger.trade ? { trade: ledger.trade } : {}),
      ...(ledger.payment ? { payment: ledger.payment } : {}),
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
    ...(run.clock.carriedDeadline !== undefined ? { stepDeadlineAt: run.clock.carriedDeadline } : {}),
    appliedEventKeys: run.applied.carry(),
    reports: run.reporter.carry(),
    hints: run.hints.carry(),
  };
}

/**
 * A new run takes up what the previous one held (workflows/deposit/run.ts, before any handler runs). A
 * carry of another version is refused, not guessed at: deposits never cross from 0.x to 1.0, so one
 * that does fails the run with CarriedDepositUnsupported, for an operator.
 */
export function takeUpCarried(carried: CarriedDeposit, ledger: DepositLedger, link: DepositJourneyLink): void {
  const { version } = carried as { version?: unknown };
  if (version !== 2) throw CarriedDepositUnsupported.version(version);
  const held = carried.ledger;
  ledger.deposit = held.deposit;
  ledger.trade = held.trade;
  ledger.payment = held.payment;
  ledger.ownRecordRead = held.ownRecordRead;
  ledger.confirmedOnce = held.confirmedOnce;
  ledger.attachmentSubmitted = held.attachmentSubmitted;
  Object.assign(ledger.state, held.state);
  link.externalId = carried.link.externalId;
  link.journeyId = carried.link.journeyId;
  link.reportedStage = carried.link.reportedStage;
  link.served = carried.link.served;
}

/** A continue-as-new argument of a version this code does not take up: not retryable, as retrying reads the same one. */
export const CarriedDepositUnsupported = {
  version: (version: unknown) =>
    ApplicationFailure.nonRetryable(
      `the last run carried a deposit of version ${typeof version === 'number' ? version : 'none'}; 1.0 takes up version 2 only (0.x deposits drain on 0.x workers)`,
      'CarriedDepositUnsupported',
    ),
};

/**
 * The next run's input: the first run's, less what it no longer needs: the starter's record (the
 * ledger carries the service's) and a reversal's mark (a reversal never waits, so never gets here).
 */
export function nextRunInput(input: DepositLifecycleInput): DepositLifecycleInput {
  return {
    depositId: input.depositId,
    ...(input.externalId !== undefined ? { externalId: input.externalId } : {}),
    ...(input.timings !== undefined ? { timings: input.timings } : {}),
  };
}
