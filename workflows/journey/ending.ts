/**
 * How a run of the customer journey (workflows/journey/workflow.ts) stops: it ends, REJECTED or CLOSED, or it
 * continues as new, carrying a state of fixed size (workflows/journey/carry.ts). Either way the stage
 * in progress throws, and the journey, once its handlers have finished and its partner events are
 * recorded, calls what is here.
 */
import { continueAsNew } from '@temporalio/workflow';
import type { DepositReportIntake } from './report-intake';
import type { AnyCarriedJourney, CarriedJourney } from './carry';
import type { JourneyEvents } from './events';
import type { JourneyInput } from '../common/journey-input';
import type { JourneyLedger } from './ledger';
import type { JourneyStage } from '../common/messages';
import type { CarriedParking } from '../common/operator';
import type { ResolvedJourneyTimings } from '../common/timings';

export interface JourneyOutcome {
  stage: 'REJECTED' | 'CLOSED';
  reason: string;
}

/** Ends the run: the journey reached REJECTED or CLOSED. */
export class JourneyEnded extends Error {
  constructor(readonly outcome: JourneyOutcome) {
    super(outcome.reason);
  }
}

/** Ends the run to continue as new with the carried state. */
export class ContinueAsNewRequest extends Error {}

/** Ends the run as CLOSED if the journey was told to end. */
export function stopIfEnded(ledger: JourneyLedger): void {
  if (ledger.endRequested()) throw new JourneyEnded({ stage: 'CLOSED', reason: ledger.endReason! });
}

/** The journey's workflow function, as continue-as-new starts it again. */
type CustomerJourneyWorkflow = (input: JourneyInput, carriedFromLastRun?: AnyCarriedJourney) => Promise<JourneyOutcome>;

/**
 * Continues as new with what the run established (called once its handlers have finished and its
 * events are recorded; the intake was closed when the run began to hand over), parked when `parking`
 * is given.
 */
export function continueJourneyAsNew(
  input: JourneyInput,
  timings: ResolvedJourneyTimings,
  ledger: JourneyLedger,
  events: JourneyEvents,
  reports: DepositReportIntake,
  parking?: CarriedParking,
): Promise<never> {
  const stageDeadlineAt = ledger.carriedDeadline;
  const next: CarriedJourney = {
    version: 2,
    state: ledger.state,
    appliedEventKeys: ledger.applied.carry(),
    accountRecords: ledger.accountRecords,
    ...(stageDeadlineAt !== undefined ? { stageDeadlineAt } : {}),
    partnerEvents: events.outbox.carry(),
    depositReportKeys: reports.carry(),
    ...(parking ? { parking } : {}),
  };
  // Only the overrides go on: the next run resolves the rest from the code's defaults of its day.
  return continueAsNew<CustomerJourneyWorkflow>({ ...input, timings: timings.overrides }, next);
}

/**
 * Records the end in the state, the UI and the partner's events, and refuses further deposit
 * reports; the journey then waits for its handlers and its events before it returns the outcome.
 */
export function recordEnd(
  outcome: JourneyOutcome,
  ledger: JourneyLedger,
  show: (stage: JourneyStage, waitingFor: string) => void,
  events: JourneyEvents,
  reports: DepositReportIntake,
): void {
  ledger.state.outcome = outcome.reason;
  reports.close();
  show(outcome.stage, `nothing: ${outcome.reason}`);
  events.ended(outcome.stage, outcome.reason);
}
