/**
 * How a workflow waits for the service: every wait's event, poll and deadline, the look a hint asks
 * for, and the deadline of a deposit's current step.
 */
import { ActivityFailure, ApplicationFailure, CancellationScope, condition, log } from '@temporalio/workflow';
import { NON_RETRYABLE_SERVICE_ERRORS, ParkRequest, parkRequestFor } from './calls';
import type { Hints } from './trust';

/**
 * Every wait for the service has three exits (DESIGN, "Rules every workflow follows"): the event (a
 * signal that makes `settled()` true), a poll of the service when no event came within the poll
 * interval (webhooks can be lost for good), and a deadline.
 *
 * The polls back off: the first comes after `pollIntervalMs`, each later one after twice the pause
 * before it, up to `pollBackoffCapMs`. Most waits end by their event within minutes; the ones that do
 * not (a signup abandoned at KYC, an approval the service sits on) then cost a few dozen polls over
 * their deadline instead of one per interval. One timer at a time serves both the poll and the
 * deadline, and none is started when the wait is already settled.
 *
 * A hint (workflows/common/trust.ts) is looked at at once, but never moves the next poll: the polls keep
 * their schedule from the last poll, so a stream of forged hints, each looked at and found to be
 * nothing, cannot keep a wait from polling until its deadline.
 *
 * A fact no event announces (`unannounced`) would otherwise wait for the first poll, a quarter of an
 * hour in production, although it usually comes true within seconds (the AUD whitelist follows
 * approval "with a short delay"). Such a wait polls early: first after EARLY_FIRST_POLL_MS, each
 * pause twice the one before until it reaches the poll interval, then as any other wait. That is
 * eight extra reads over the first twenty minutes of a 15-minute interval, once per such wait.
 */
export type WaitOutcome = 'settled' | 'deadline' | 'continue-as-new';

/** The first pause of a wait for a fact no event announces (see above). */
export const EARLY_FIRST_POLL_MS = 5_000;

export interface ServiceWait {
  /** What is awaited, for timer summaries in the Web UI. */
  what: string;
  /** True once the awaited state has been reached (by an event or a poll) or the wait should end. */
  settled: () => boolean;
  /** Asks the service directly and applies what it says. */
  poll: () => Promise<void>;
  /** The pause before the first poll. */
  pollIntervalMs: number;
  /** The longest pause between two polls (the pauses double up to it). */
  pollBackoffCapMs: number;
  /** No event announces the awaited fact (or one announces only some of its outcomes): poll early (see above). */
  unannounced?: boolean;
  /** Absolute workflow time at which the wait gives up. */
  deadlineAt: number;
  now: () => number;
  /** True when the history has grown enough that the workflow should continue as new. */
  shouldContinueAsNew?: () => boolean;
  /**
   * Deliveries' hints that the awaited fact may have come true (workflows/common/trust.ts): while
   * `pending()`, the wait calls `look()` at once instead of waiting for the next poll. `look` clears
   * the hints it answers before it reads, so a failing read does not spin.
   */
  hints?: Hints;
}

export async function waitForService(wait: ServiceWait): Promise<WaitOutcome> {
  if (wait.settled()) return 'settled';
  const early = wait.unannounced === true && EARLY_FIRST_POLL_MS < wait.pollIntervalMs;
  let intervalMs = early ? EARLY_FIRST_POLL_MS : wait.pollIntervalMs;
  // When the next poll is due: the wait sleeps only until then, so a hint looked at never postpones a
  // poll, and forged hints cannot starve the polls.
  let pollAt = wait.now() + intervalMs;
  const hinted = (): boolean => wait.hints?.pending() ?? false;
  // Deliveries that claim nothing new still write history: the sleeping wait wakes to continue as
  // new when it has grown.
  const grown = (): boolean => wait.shouldContinueAsNew?.() === true;
  for (;;) {
    if (wait.settled()) return 'settled';
    const now = wait.now();
    const leftMs = wait.deadlineAt - now;
    if (leftMs <= 0) return 'deadline';
    if (wait.shouldContinueAsNew?.()) return 'continue-as-new';
    if (wait.hints && hinted()) {
      if (await lookUnlessGrown(wait, wait.hints, grown)) return 'continue-as-new';
      continue;
    }
    const untilPollMs = pollAt - now;
    if (untilPollMs > 0) {
      const untilDeadline = leftMs < untilPollMs;
      const woke = await condition(() => wait.settled() || hinted() || grown(), untilDeadline ? leftMs : untilPollMs, {
        summary: `${untilDeadline ? 'event or deadline' : 'event or poll'}: ${wait.what}`,
      });
      if (woke || untilDeadline) continue;
    }
    await pollTolerantly(wait.what, wait.poll);
    intervalMs =
      intervalMs < wait.pollIntervalMs
        ? Math.min(intervalMs * 2, wait.pollIntervalMs)
        : nextPollInterval(intervalMs, wait.pollBackoffCapMs);
    pollAt = wait.now() + intervalMs;
  }
}

/**
 * The look a hint asked for, given up when the history grows past its limit meanwhile: a storm of
 * deliveries during one slow read would otherwise all land in this run. A look only reads (what it
 * read is taken when the read returns), so the run can continue as new with its read in flight;
 * the next poll reads the record again. True when it gave the look up.
 */
async function lookUnlessGrown(wait: ServiceWait, hints: Hints, grown: () => boolean): Promise<boolean> {
  if (!wait.shouldContinueAsNew) {
    await pollTolerantly(wait.what, hints.look);
    return false;
  }
  const watch = new CancellationScope();
  const filled = watch
    .run(() => condition(grown))
    .then(
      () => true,
      () => false,
    );
  try {
    return await Promise.race([pollTolerantly(wait.what, hints.look).then(() => false), filled]);
  } finally {
    watch.cancel();
  }
}

/** Doubles the pause up to the cap (a cap below the first interval means no backoff). */
export function nextPollInterval(intervalMs: number, capMs: number): number {
  return Math.max(intervalMs, Math.min(intervalMs * 2, capMs));
}

/**
 * The park request of a wait whose deadline passed. The fact may still come true (an event delivered
 * late, a decision the service made after the deadline): the parked workflow keeps listening and
 * looking (workflows/common/parking.ts) and resumes by itself when it does.
 */
export function deadlinePassed(
  wait: Pick<ServiceWait, 'what' | 'settled' | 'poll' | 'pollIntervalMs' | 'hints'>,
): ParkRequest {
  // Says what was waited for, not who failed to answer: some waits are on the partner (an exit account it registers).
  return new ParkRequest(`the deadline passed while waiting for ${wait.what}`, 'Deadline', {
    what: wait.what,
    settled: wait.settled,
    poll: wait.poll,
    firstIntervalMs: wait.pollIntervalMs,
    ...(wait.hints ? { hints: wait.hints } : {}),
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
    if (
      cause instanceof ApplicationFailure &&
      (NON_RETRYABLE_SERVICE_ERRORS as readonly string[]).includes(cause.type ?? '')
    ) {
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

/**
 * The deadline of a deposit's current step (workflows/deposit/workflow.ts), and whether its next wait asks the
 * service at once. A step's deadline starts when it first waits and restarts when the deposit moves to
 * another step or an operator resumes it.
 */
export class DepositStepClock {
  /** Set by an operator's retry: the retried wait asks the service at once instead of after a poll interval. */
  private lookFirst = false;

  /** @param deadlineAt the step's deadline the previous run carried (continue-as-new does not extend it) */
  constructor(private deadlineAt?: number) {}

  /** The deadline of the step in progress, for the next run to keep. */
  get carriedDeadline(): number | undefined {
    return this.deadlineAt;
  }

  /** The current step's deadline: `startAt()` (asked only then) if the step has none yet. */
  deadline(startAt: () => number): number {
    this.deadlineAt ??= startAt();
    return this.deadlineAt;
  }

  /** The next wait gets a deadline of its own. */
  restart(): void {
    this.deadlineAt = undefined;
  }

  /** After an operator's decision: a retry looks before it waits. */
  resumed(byRetry: boolean): void {
    this.lookFirst = byRetry;
    this.deadlineAt = undefined;
  }

  /** Whether this wait should ask the service first; asked once. */
  takeLookFirst(): boolean {
    const look = this.lookFirst;
    this.lookFirst = false;
    return look;
  }
}
