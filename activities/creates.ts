/**
 * A create that may have reached the service is never overlapped by another attempt.
 *
 * The service has no idempotency key, and it may hold a request for a while before acting on it. So
 * an attempt that gave up on a create (a timeout, a reset, a 5xx), or that died with one in flight
 * (a killed worker), leaves a request that can still take effect. The next attempt must not look
 * the record up, find nothing and send a second one while that request is still held. Each activity
 * that creates runs under `asCreate`, which:
 *
 * - records, in the attempt's heartbeat details, `settleMs`: how long, from the start of the attempt
 *   that inherits the record, a request leaving now may still be held (the settle delay,
 *   `outcomeUnknownRetryDelayMs`). A duration, never a time: the next attempt may run on another
 *   worker, whose clock need not agree with this one's (a time written by one and compared by the
 *   other would let a worker whose clock runs behind send a second create while the first is held).
 *   The next attempt starts after the request left, so waiting the whole delay from its start is
 *   never too short. The record is sent just before every POST and is the attempt's first
 *   heartbeat, which the SDK sends to Temporal at once (later ones are throttled, up to 30 s), so it
 *   survives the worker being killed the moment after. Temporal hands the last details to every
 *   later attempt;
 * - at the start of every attempt, waits the `settleMs` it inherits (cancellation-aware), or, when
 *   that is more than half of what the attempt may run, ends the attempt as OutcomeUnknown with the
 *   wait as its retry delay; only then looks up, and creates only when the record is absent. An
 *   attempt that fails with the rest of the wait as its retry delay (Temporal's own timer), or
 *   whose request was answered (created, or refused), leaves a record of nothing more to wait as it
 *   fails (the SDK sends the last details with the failure), so its retry does not wait again;
 * - while its request is out, heartbeats every 10 s, so a cancellation reaches the request (the
 *   attempt's abort signal goes down to undici, attempt.ts);
 * - turns a FAILED answer to the create into `Refused` (not retried: the workflow parks with the
 *   service's words) once the activity has been refused for longer than `refusedCreateParkAfterMs`
 *   since it was first scheduled. Connection errors, 5xx and UNAUTHORISED keep retrying as before:
 *   an outage of the whole service stays one incident (service-health.ts), not a park per workflow.
 *
 * No heartbeat timeout is set on creates: it would add nothing (the settle delay, not the detection
 * of a dead worker, decides when the next attempt may create), and heartbeats before the record
 * would delay the record itself by the SDK's throttle.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { currentActivity, httpBudgetMs } from './attempt';
import { asActivity, DEFAULT_REFUSED_CREATE_PARK_AFTER_MS, type FailureOptions } from './failures';

/** What a create attempt heartbeats. */
export interface CreateRecord {
  /** How long (ms), from the start of the attempt that inherits this record, before it may look up and create again. */
  settleMs: number;
  /** The attempt that sent the request. */
  sentBy: number;
}

/** While a request is out, how often the attempt heartbeats (so that a cancellation reaches it). */
export const CREATE_HEARTBEAT_INTERVAL_MS = 10_000;

/** The record in an attempt's inherited heartbeat details, if they hold one. */
export function createRecordOf(details: unknown): CreateRecord | undefined {
  if (typeof details !== 'object' || details === null) return undefined;
  const { settleMs, sentBy, settleUntil } = details as Partial<CreateRecord> & { settleUntil?: unknown };
  if (typeof sentBy !== 'number') return undefined;
  if (typeof settleMs === 'number') return { settleMs, sentBy };
  // A record of the code before, written as a time on the sending worker's clock: the best reading left of it.
  return typeof settleUntil === 'number' ? { settleMs: Math.max(0, settleUntil - Date.now()), sentBy } : undefined;
}

/** Runs a call that creates something at the service, so that no two of its attempts overlap (above). */
export async function asCreate<T>(call: () => Promise<T>, options: FailureOptions): Promise<T> {
  const activity = currentActivity();
  if (!activity) return asActivity(call, options);
  const startedAt = Date.now();
  const { info } = activity;
  const settleDelayMs = options.outcomeUnknownRetryDelayMs;
  const refusedAfterMs = options.refusedCreateParkAfterMs ?? DEFAULT_REFUSED_CREATE_PARK_AFTER_MS;
  let record = createRecordOf(info.heartbeatDetails);
  let keepAlive: NodeJS.Timeout | undefined;

  const inherited = record;
  if (inherited !== undefined && inherited.settleMs > 0) {
    const wait = inherited.settleMs;
    const budget = startedAt + httpBudgetMs(info.startToCloseTimeoutMs) - Date.now();
    if (wait > budget / 2) {
      // Temporal's timer waits it out: the retry has nothing left to wait.
      record = { settleMs: 0, sentBy: inherited.sentBy };
      activity.heartbeat(record);
      throw ApplicationFailure.create({
        type: 'OutcomeUnknown',
        message: `a create sent by attempt ${inherited.sentBy} may still take effect: it is looked up once it has settled, in ${Math.ceil(wait / 1000)} s`,
        nextRetryDelay: wait,
      });
    }
    await activity.sleep(wait);
  }

  /** When this attempt's request left, on this worker's clock (compared only on this worker). */
  let sentAt: number | undefined;
  const settleLeftMs = (): number => Math.max(0, (sentAt ?? Date.now()) + settleDelayMs - Date.now());
  try {
    return await asActivity(call, options, {
      attemptStartedAt: startedAt,
      beforePost: async () => {
        sentAt = Date.now();
        record = { settleMs: settleDelayMs, sentBy: info.attempt };
        activity.heartbeat(record);
        keepAlive ??= setInterval(() => activity.heartbeat(record), CREATE_HEARTBEAT_INTERVAL_MS);
      },
      // From when the request left, not from now: the request has been held since then.
      outcomeUnknownRetryDelayMs: settleLeftMs,
      isRefusal: (error) => error.method === 'POST' && Date.now() - info.scheduledTimestampMs >= refusedAfterMs,
    });
  } catch (failure) {
    // Nothing left for the next attempt to wait: the request this attempt sent was answered
    // (refused, created then failed later, or never left), or the failure's retry delay, Temporal's
    // timer, waits out the rest (an OutcomeUnknown without one: the request has already settled).
    if (record?.sentBy === info.attempt && !activity.cancellationSignal.aborted) {
      record = { settleMs: 0, sentBy: info.attempt };
      activity.heartbeat(record);
    }
    throw failure;
  } finally {
    clearInterval(keepAlive);
  }
}
