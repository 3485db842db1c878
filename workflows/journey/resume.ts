/**
 * The customer journey's operator path (workflows/journey/workflow.ts, workflows/common/operator.ts): a stage that
 * parked waits for an operator, who ends the journey or retries it, perhaps in bulk, perhaps with
 * corrected input. What a retry changes for the rest of the run is the journey's course.
 *
 * A parked journey whose history grows continues as new parked (PARKED_CONTINUES_AS_NEW): the next
 * run takes the parking up (`course.carriedParking`). A park with no late fact is taken up at once; a
 * deadline's park is rebuilt by running its stage again with nothing shown, its passed wait parking at
 * once (workflows/journey/waits.ts), so the park looks at the same fact as before.
 */
import type { JourneyEvents } from './events';
import type { JourneyInput } from '../common/journey-input';
import { JourneyEnded, stopIfEnded } from './ending';
import type { JourneyLedger } from './ledger';
import { JOURNEY_STAGES, type JourneyStage } from '../common/messages';
import type { CarriedParking, OperatorDesk } from '../common/operator';
import { PARKED_CONTINUES_AS_NEW, takesPatch } from '../common/patches';
import { PRIORITY } from '../common/service-activities';
import { ParkRequest } from '../common/service-failures';

/** What an operator's retry sets for the rest of the run. */
export class JourneyCourse {
  // On the service task queue (workflows/common/service-activities.ts): a signup goes before bulk work, a
  // journey an operator retried in bulk after it.
  callPriority: number = PRIORITY.HIGH;
  /** Set by an operator's retry: the retried wait asks the service at once instead of after a poll interval. */
  lookBeforeWaiting = false;
  /**
   * The parking the previous run handed on, until this run's park takes it up (or its stage finds
   * the fact came true meanwhile): while set, the stage runs again only to rebuild its park.
   */
  carriedParking: CarriedParking | undefined;

  constructor(public input: JourneyInput) {}
}

/** The parts of a journey that parking and resuming touch. */
export interface ParkedJourney {
  desk: OperatorDesk;
  ledger: JourneyLedger;
  events: JourneyEvents;
  course: JourneyCourse;
  show: (stage: JourneyStage, waitingFor: string) => void;
  /** True when the history has grown enough to continue as new. */
  shouldContinueAsNew: () => boolean;
}

/** Parks the stage until an operator decides; returns the stage to run next. */
export async function resumeParked(
  parkedStage: JourneyStage,
  request: ParkRequest,
  parkedJourney: ParkedJourney,
): Promise<JourneyStage> {
  const { desk, ledger, events, course, show, shouldContinueAsNew } = parkedJourney;
  const carried = course.carriedParking;
  // The park the stage rebuilt is the one carried; a different one means the carried one ended meanwhile.
  const takesUp = carried !== undefined && carried.attention.reason === request.reason;
  if (carried && !takesUp) endCarried(parkedJourney);
  course.carriedParking = undefined;
  const decision = await desk.park(
    parkedStage,
    request,
    () => {
      show('NEEDS_ATTENTION', `an operator: ${request.reason}`);
      events.parked(parkedStage, request.reason);
    },
    ledger.endRequested,
    {
      historyFull: () => shouldContinueAsNew() && takesPatch(PARKED_CONTINUES_AS_NEW),
      ...(takesUp ? { carried } : {}),
    },
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
    if (corrected.offramp && state.offramp)
      state.offramp = { currency: corrected.offramp.currency, network: corrected.offramp.network };
  }
  // New ramps are set up afresh, even when the journey was parked after setting up the old ones.
  const rampsCorrected = corrected?.onramp !== undefined || corrected?.offramp !== undefined;
  if (rampsCorrected && JOURNEY_STAGES.indexOf(parkedStage) > JOURNEY_STAGES.indexOf('SETTING_UP_RAMPS'))
    return 'SETTING_UP_RAMPS';
  return parkedStage;
}

/**
 * Runs `stage` as the first stage of a run that continues a parked one. A park with no late fact is
 * taken up without running it; a stage that ends otherwise than parked found its fact came true
 * between the runs, and the parking ends as resolved.
 */
export async function runCarriedParking(
  stage: () => Promise<JourneyStage>,
  parkedJourney: ParkedJourney,
): Promise<JourneyStage> {
  const { attention, lateLooks } = parkedJourney.course.carriedParking!;
  if (!lateLooks) throw new ParkRequest(attention.reason, attention.errorType);
  try {
    const next = await stage();
    endCarried(parkedJourney);
    return next;
  } catch (error) {
    if (!(error instanceof ParkRequest)) endCarried(parkedJourney);
    throw error;
  }
}

/** The carried parking ended by itself: counted and told as the park that took it up would have. */
function endCarried({ desk, events, course, ledger }: ParkedJourney): void {
  const carried = course.carriedParking;
  if (!carried) return;
  course.carriedParking = undefined;
  desk.resolveCarried(carried);
  // As a park that ends when the journey is told to end, which tells the partner only of the end.
  if (!ledger.endRequested()) events.resumed(carried.attention.stage);
  ledger.forgetDeadline();
}
