/**
 * The deposit's operator path (workflows/deposit.ts, workflows/operator.ts): a step that parked waits
 * for an operator, who cancels the deposit or resumes it; a retry looks at the service before it waits.
 */
import type { DepositCourse } from './deposit-course';
import { DepositEnded } from './deposit-ending';
import { show } from './deposit-showing';
import type { DepositStage } from './messages';
import type { ParkRequest } from './service-failures';

/** Parks the step until an operator decides (or its late fact comes true); the step then runs again. */
export async function parkUntilResumed(course: DepositCourse, parked: DepositStage, error: ParkRequest): Promise<void> {
  const decision = await course.desk.park(parked, error, () => void show(course, 'NEEDS_ATTENTION', `an operator: ${error.reason}`));
  if (decision.kind === 'cancel') throw new DepositEnded({ stage: 'CANCELLED', reason: decision.reason });
  // An operator's retry of a deposit no journey takes tracks it anyway (reports are then best effort).
  if (error.errorType === 'CustomerNotServed') course.link.trackWithoutJourney();
  course.clock.resumed(decision.kind === 'retry');
}
