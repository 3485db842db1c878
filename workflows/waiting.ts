/**
 * Every wait for the service has three exits (DESIGN, "Rules every workflow follows"): the event (a
 * signal that makes `settled()` true), a poll of the service when no event came within the poll
 * interval (webhooks can be lost for good), and a deadline.
 */
import { CancellationScope, condition, log, sleep } from '@temporalio/workflow';
import { NON_RETRYABLE_SERVICE_ERRORS, ParkRequest, parkRequestFor } from './service-failures';
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';

export type WaitOutcome = 'settled' | 'deadline' | 'continue-as-new';

export interface ServiceWait {
  /** What is awaited, for timer summaries in the Web UI. */
  what: string;
  /** True once the awaited state has been reached (by an event or a poll) or the wait should end. */
  settled: () => boolean;
  /** Asks the service directly and applies what it says. */
  poll: () => Promise<void>;
  pollIntervalMs: number;
  /** Absolute workflow time at which the wait gives up. */
  deadlineAt: number;
  now: () => number;
  /** True when the history has grown enough that the workflow should continue as new. */
  shouldContinueAsNew?: () => boolean;
}

export async function waitForService(wait: ServiceWait): Promise<WaitOutcome> {
  let deadlinePassed = false;
  const timers = new CancellationScope();
  void timers
    .run(() => sleep(Math.max(wait.deadlineAt - wait.now(), 1), { summary: `deadline: ${wait.what}` }))
    .then(
      () => (deadlinePassed = true),
      () => undefined, // cancelled because the wait ended first
    );
  try {
    for (;;) {
      if (wait.settled()) return 'settled';
      if (deadlinePassed) return 'deadline';
      if (wait.shouldContinueAsNew?.()) return 'continue-as-new';
      const woke = await condition(() => wait.settled() || deadlinePassed, wait.pollIntervalMs, {
        summary: `event or poll: ${wait.what}`,
      });
      if (!woke) await pollTolerantly(wait.what, wait.poll);
    }
  } finally {
    timers.cancel();
  }
}

/**
 * The park request of a wait whose deadline passed. The fact may still come true (an event delivered
 * late, a decision the service made after the deadline): the parked workflow keeps listening and
 * looking (workflows/operator.ts) and resumes by itself when it does.
 */
export function deadlinePassed(wait: Pick<ServiceWait, 'what' | 'settled' | 'poll' | 'pollIntervalMs'>): ParkRequest {
  return new ParkRequest(`no answer from the service within the deadline while waiting for ${wait.what}`, 'Deadline', {
    what: wait.what,
    settled: wait.settled,
    poll: wait.poll,
    firstIntervalMs: wait.pollIntervalMs,
  });
}

/**
 * A poll whose retries ran out on a transient failure is not fatal: the next poll or an event will
 * do. A failure a retry cannot fix (bad credentials, a refused request) parks the workflow.
 */
export async function pollTolerantly(what: string, poll: () => Promise<void>): Promise<void> {
  try {
    await poll();
  } catch (error) {
    const cause = error instanceof ActivityFailure ? error.cause : undefined;
    if (cause instanceof ApplicationFailure && (NON_RETRYABLE_SERVICE_ERRORS as readonly string[]).includes(cause.type ?? '')) {
      throw parkRequestFor(error, `asking the service about ${what}`);
    }
    if (!(error instanceof ActivityFailure)) throw error;
    // Debug only: when the service fails for everyone, every waiting workflow gets here; the worker
    // reports that once (activities/service-health.ts).
    log.debug('poll failed; waiting for the next poll or an event', { what, error: error.message });
  }
}

/** A look at the service by a parked workflow: any failure just means "not yet". */
export async function lookQuietly(poll: () => Promise<void>): Promise<void> {
  try {
    await poll();
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
  }
}
