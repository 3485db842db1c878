/**
 * How a deposit (workflows/deposit/workflow.ts) waits for the service: every wait has the event path (and the
 * hints deliveries left), a poll and the step's deadline, at which it parks; after confirmation a wait
 * also ends on a refund. A wait ends the run to continue as new when its history has grown
 * (workflows/deposit/carry.ts).
 */
import { workflowNow } from '../common/clock';
import { depositHistoryFull, DepositHistoryFull } from './carry';
import type { DepositCourse } from './course';
import { reversal } from './ending';
import { deadlinePassed, pollTolerantly, waitForService } from '../common/waiting';

/** @param how.unannounced no event announces (one of) the awaited outcomes: the wait polls early (workflows/common/waiting.ts) */
export async function waitOrPark(
  course: DepositCourse,
  what: string,
  settled: () => boolean,
  pollOnce: () => Promise<void>,
  how: { unannounced?: boolean } = {},
): Promise<void> {
  const { clock, timings, hints } = course;
  const wait = {
    what,
    settled,
    poll: pollOnce,
    ...(how.unannounced ? { unannounced: true } : {}),
    hints: { pending: hints.claimNews, look: hints.look },
    pollIntervalMs: timings.pollIntervalSeconds * 1000,
    // Deposits started before the backoff carry no cap: they poll as they always did.
    pollBackoffCapMs: (timings.pollBackoffCapSeconds ?? timings.pollIntervalSeconds) * 1000,
  };
  // A step run again to rebuild the park the previous run carried parks at once on a wait not yet
  // settled (its deadline had passed): only the fact coming true moves it on (workflows/deposit/resume.ts).
  if (course.carriedParking && !settled()) throw deadlinePassed(wait);
  const deadlineAt = clock.deadline(() => workflowNow() + timings.stepDeadlineSeconds * 1000);
  if (clock.takeLookFirst()) await pollTolerantly(what, pollOnce);
  const outcome = await waitForService({
    ...wait,
    deadlineAt,
    now: workflowNow,
    shouldContinueAsNew: depositHistoryFull,
  });
  if (outcome === 'continue-as-new') throw new DepositHistoryFull();
  if (outcome === 'deadline') throw deadlinePassed(wait);
}

/**
 * A wait after confirmation also ends on a refund; its polls read the deposit as well as what they
 * wait for, since a refunded deposit's trade or payout never settles (DEPOSIT_REFUND).
 */
export async function waitUnlessRefunded(
  course: DepositCourse,
  what: string,
  settled: () => boolean,
  pollOnce: () => Promise<void>,
): Promise<void> {
  const { ledger } = course;
  await waitOrPark(
    course,
    what,
    () => settled() || ledger.refunded(),
    async () => {
      if (course.verifiesPayloads) await course.pollDeposit();
      if (!ledger.refunded()) await pollOnce();
    },
  );
  if (ledger.refunded()) throw reversal(ledger, course.link);
}
