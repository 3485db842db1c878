/**
 * The deposit's operator path (workflows/deposit/workflow.ts, workflows/common/operator.ts): a step that parked waits
 * for an operator, who cancels the deposit or resumes it; a retry looks at the service before it waits.
 *
 * A parked deposit whose history grows continues as new parked (PARKED_CONTINUES_AS_NEW): the next
 * run takes the parking up (`course.carriedParking`). A park with no late fact (a failure, money for a
 * customer not served) is taken up at once; a deadline's park is rebuilt by running its step again
 * with nothing shown, its passed wait parking at once (workflows/deposit/waits.ts), so the park looks
 * at the same fact as before.
 */
import type { DepositCourse } from './course';
import { parkedDepositHistoryFull } from './carry';
import { DepositEnded } from './ending';
import { show } from './showing';
import type { DepositStage } from '../common/messages';
import { ParkRequest } from '../common/service-failures';

/** Parks the step until an operator decides (or its late fact comes true); the step then runs again. */
export async function parkUntilResumed(course: DepositCourse, parked: DepositStage, error: ParkRequest): Promise<void> {
  const carried = course.carriedParking;
  course.carriedParking = undefined;
  // The park the step rebuilt is the one carried (a different one is a park of its own).
  const takesUp = carried !== undefined && carried.attention.reason === error.reason;
  // A different one means the carried one ended meanwhile.
  if (carried && !takesUp) course.desk.resolveCarried(carried);
  const decision = await course.desk.park(
    parked,
    error,
    () => show(course, 'NEEDS_ATTENTION', `an operator: ${error.reason}`),
    undefined,
    {
      historyFull: parkedDepositHistoryFull,
      ...(takesUp ? { carried } : {}),
    },
  );
  if (decision.kind === 'cancel') throw new DepositEnded({ stage: 'CANCELLED', reason: decision.reason });
  // An operator's retry of a deposit no journey takes tracks it anyway (reports are then best effort).
  if (error.errorType === 'CustomerNotServed') course.link.trackWithoutJourney();
  course.clock.resumed(decision.kind === 'retry');
}

/**
 * Runs `step` as the first step of a run that continues a parked one. A park with no late fact is
 * taken up without running it; a step that ends otherwise than parked found its fact came true
 * between the runs, and the parking ends as resolved.
 */
export async function runCarriedParking(
  course: DepositCourse,
  step: () => Promise<DepositStage>,
): Promise<DepositStage> {
  const carried = course.carriedParking!;
  if (!carried.lateLooks) throw new ParkRequest(carried.attention.reason, carried.attention.errorType);
  try {
    const next = await step();
    endCarried(course);
    return next;
  } catch (error) {
    if (!(error instanceof ParkRequest)) endCarried(course);
    throw error;
  }
}

function endCarried(course: DepositCourse): void {
  if (!course.carriedParking) return;
  course.desk.resolveCarried(course.carriedParking);
  course.carriedParking = undefined;
  course.clock.resumed(false);
}
