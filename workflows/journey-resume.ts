/**
 * The customer journey's operator path (workflows/journey.ts, workflows/operator.ts): a stage that
 * parked waits for an operator, who ends the journey or retries it, perhaps in bulk, perhaps with
 * corrected input. What a retry changes for the rest of the run is the journey's course.
 */
import type { JourneyEvents } from './journey-events';
import type { JourneyInput } from './journey-input';
import { JourneyEnded, stopIfEnded } from './journey-ending';
import type { JourneyLedger } from './journey-ledger';
import { JOURNEY_STAGES, type JourneyStage } from './messages';
import type { OperatorDesk } from './operator';
import { PRIORITY } from './service-activities';
import type { ParkRequest } from './service-failures';

/** What an operator's retry sets for the rest of the run. */
export class JourneyCourse {
  // On the service task queue (workflows/service-activities.ts): a signup goes before bulk work, a
  // journey an operator retried in bulk after it.
  callPriority: number = PRIORITY.HIGH;
  /** Set by an operator's retry: the retried wait asks the service at once instead of after a poll interval. */
  lookBeforeWaiting = false;

  constructor(public input: JourneyInput) {}
}

/** The parts of a journey that parking and resuming touch. */
export interface ParkedJourney {
  desk: OperatorDesk;
  ledger: JourneyLedger;
  events: JourneyEvents;
  course: JourneyCourse;
  show: (stage: JourneyStage, waitingFor: string) => void;
}

/** Parks the stage until an operator decides; returns the stage to run next. */
export async function resumeParked(parkedStage: JourneyStage, request: ParkRequest, { desk, ledger, events, course, show }: ParkedJourney): Promise<JourneyStage> {
  const decision = await desk.park(
    parkedStage,
    request,
    () => {
      show('NEEDS_ATTENTION', `an operator: ${request.reason}`);
      events.parked(parkedStage, request.reason);
    },
    ledger.endRequested,
  );
  if (decision.kind === 'cancel') throw new JourneyEnded({ stage: 'CLOSED', reason: decision.reason });
  stopIfEnded(ledger);
  events.resumed(parkedStage);
  ledger.forgetDeadline(); // a retried wait gets a fresh deadline
  if (decision.kind !== 'retry') return parkedStage;
  course.lookBeforeWaiting = true;
  // A retry among thousands waits behind signups; a single retry is someone waiting.
  course.callPriority = decision.request.bulk ? PRIORITY.LOW : PRIORITY.HIGH;
  const corrected = decision.request.correctedInput;
  const { state } = ledger;
  if (corrected) {
    course.input = { ...course.input, ...corrected };
    // Corrected ramps are looked for and set up afresh.
    if (corrected.onramp && state.onramp) state.onramp = { currency: corrected.onramp.currency };
    if (corrected.offramp && state.offramp) state.offramp = { currency: corrected.offramp.currency, network: corrected.offramp.network };
  }
  // New ramps are set up afresh, even when the journey was parked after setting up the old ones.
  const rampsCorrected = corrected?.onramp !== undefined || corrected?.offramp !== undefined;
  if (rampsCorrected && JOURNEY_STAGES.indexOf(parkedStage) > JOURNEY_STAGES.indexOf('SETTING_UP_RAMPS')) return 'SETTING_UP_RAMPS';
  return parkedStage;
}
