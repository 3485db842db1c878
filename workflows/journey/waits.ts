/**
 * How the customer journey (workflows/journey/workflow.ts) waits for the service: every wait has an event, a
 * poll and a deadline (the stage's, carried through continue-as-new); it ends the run to continue as
 * new when the history has grown, parks at the deadline, and stops when the journey was told to end.
 */
import { workflowInfo } from '@temporalio/workflow';
import { workflowNow } from '../common/clock';
import { ContinueAsNewRequest, stopIfEnded } from './ending';
import type { JourneyLedger } from './ledger';
import type { JourneyCourse } from './resume';
import type { ResolvedJourneyTimings } from '../common/timings';
import { deadlinePassed, pollTolerantly, waitForService } from '../common/waiting';

export class JourneyWaits {
  constructor(
    private readonly timings: ResolvedJourneyTimings,
    private readonly ledger: JourneyLedger,
    private readonly course: JourneyCourse,
  ) {}

  readonly shouldContinueAsNew = (): boolean =>
    workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > this.timings.maxHistoryEvents;

  /**
   * @param how.hinted whether deliveries' hints wait for a look
   * @param how.unannounced no event announces the fact: the wait polls early (workflows/common/waiting.ts)
   */
  readonly waitOrPark = async (
    what: string,
    settled: () => boolean,
    pollOnce: () => Promise<void>,
    deadlineSeconds: number,
    how: { hinted?: () => boolean; unannounced?: boolean } = {},
  ): Promise<void> => {
    const { hinted } = how;
    const wait = {
      what,
      settled: () => settled() || this.ledger.endRequested(),
      poll: pollOnce,
      ...(how.unannounced ? { unannounced: true } : {}),
      // A hinted look is the poll: it reads what the hints name (and clears them first).
      ...(hinted ? { hints: { pending: hinted, look: pollOnce } } : {}),
      pollIntervalMs: this.timings.pollIntervalSeconds * 1000,
      // Journeys started before the backoff carry no cap: they poll as they always did.
      pollBackoffCapMs: (this.timings.pollBackoffCapSeconds ?? this.timings.pollIntervalSeconds) * 1000,
    };
    // A stage run again to rebuild the park the previous run carried parks at once on a wait not yet
    // settled (its deadline had passed): only the fact coming true moves it on (workflows/journey/resume.ts).
    if (this.course.carriedParking && !wait.settled()) throw deadlinePassed(wait);
    if (this.course.lookBeforeWaiting) {
      this.course.lookBeforeWaiting = false;
      await pollTolerantly(what, pollOnce);
    }
    const outcome = await waitForService({
      ...wait,
      deadlineAt: this.ledger.deadline(deadlineSeconds),
      now: workflowNow,
      shouldContinueAsNew: this.shouldContinueAsNew,
    });
    if (outcome === 'continue-as-new') throw new ContinueAsNewRequest();
    if (outcome === 'deadline') throw deadlinePassed(wait);
    stopIfEnded(this.ledger);
  };
}
