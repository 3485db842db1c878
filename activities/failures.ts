/**
 * Maps the client's typed errors to Temporal failures the workflows can read by type.
 *
 * - InvalidParameters, LegacyFailure, SchemaMismatch: non-retryable; the workflow parks.
 * - Unauthorised, Failed, Connection, HttpError (5xx): retryable with the activity's backoff.
 * - RateLimited (a 429, or a call the process's gate held back after one: ramp/call-pacing.ts):
 *   retryable, with the service's Retry-After (or the gate's remaining wait) as `nextRetryDelay`, so
 *   the retry neither comes early nor hammers the service at the policy's backoff.
 *   UNAUTHORISED fails every call alike (a rotated key, a wrong secret, a clock far off): one
 *   incident for the worker to report (service-health.ts), fixed once for all, not a park per workflow.
 * - OutcomeUnknown (a create that may have reached the service): retryable, and safe to retry
 *   because every activity that creates looks the object up first, but only once the request we
 *   gave up on can no longer land (see DEFAULT_OUTCOME_UNKNOWN_RETRY_DELAY_MS and creates.ts).
 * - Refused: a FAILED answer to a create that the service has kept giving for longer than
 *   `refusedCreateParkAfterMs` (creates.ts): not retried, so the workflow parks with the service's words.
 *
 * Every call runs under its attempt's limits (attempt.ts): a deadline inside the start-to-close
 * timeout and the activity's cancellation signal. A call abandoned because the attempt was cancelled
 * ends as the cancellation, not as a failure of the service.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { attemptLimits, currentActivity } from './attempt';
import type { ServiceHealth } from './service-health';
import {
  RampConnectionError,
  RampError,
  RampFailedError,
  RampInvalidParametersError,
  RampLegacyFailureError,
  RampOutcomeUnknownError,
  RampRateLimitedError,
  RampSchemaError,
  RampUnauthorisedError,
  withCallLimits,
} from '../ramp';

/**
 * How long the retry of an outcome-unknown call waits before it looks the record up. A request whose
 * answer we stopped waiting for (a timeout, a reset, a 5xx from a gateway) may still be held by the
 * service and take effect later; a look-up before then finds nothing, creates again, and the late
 * request then makes a second record (the fault suite's timeout case showed exactly that: two
 * autoramp flows for one customer). The service has no idempotency key, so the only defence is to
 * wait out that window, counted from when the request left (creates.ts). The interface does not
 * bound it; we assume the service (or its gateway) gives up on a request within a minute, as common
 * load balancers do; it is longer than any request of ours waits for its answer (attempt.ts keeps
 * each inside its activity's one-minute timeout). Overridable per worker
 * (`RampflowWorkerOptions.outcomeUnknownRetryDelayMs`) where a deployment knows better.
 */
export const DEFAULT_OUTCOME_UNKNOWN_RETRY_DELAY_MS = 60_000;

/**
 * How long a create the service keeps refusing (FAILED) is retried before its workflow parks with
 * the service's words. A refusal can be passing (a record the service is still making, a limit
 * that resets), so it is retried for a while; one that lasts an hour needs a person. Counted from
 * when the activity was first scheduled, so each operator `retry` gets the hour again.
 */
export const DEFAULT_REFUSED_CREATE_PARK_AFTER_MS = 60 * 60_000;

export interface FailureOptions {
  /** The settle delay: how long after a create left its retry waits before looking the record up. */
  outcomeUnknownRetryDelayMs: number;
  /** How long a create the service refuses with FAILED is retried before it is `Refused` (DEFAULT_REFUSED_CREATE_PARK_AFTER_MS). */
  refusedCreateParkAfterMs?: number;
  /** Told of every call's success or failure, to report an outage once for the whole worker. */
  health?: ServiceHealth;
}

export const DEFAULT_FAILURE_OPTIONS: FailureOptions = {
  outcomeUnknownRetryDelayMs: DEFAULT_OUTCOME_UNKNOWN_RETRY_DELAY_MS,
};

/** What one kind of activity (creates.ts) decides for itself when mapping its failures. */
export interface CallHooks {
  /** When the attempt started, if earlier than this call (its deadline counts from then). */
  attemptStartedAt?: number;
  /** Awaited just before each POST leaves (call-limits.ts). */
  beforePost?: () => Promise<void>;
  /** The wait before an outcome-unknown create may be retried; `outcomeUnknownRetryDelayMs` when absent. */
  outcomeUnknownRetryDelayMs?: () => number;
  /** Whether a FAILED answer is a refusal to park on (`Refused`) rather than to retry (`Failed`). */
  isRefusal?: (error: RampFailedError) => boolean;
}

export function toTemporalFailure(
  error: unknown,
  options: FailureOptions = DEFAULT_FAILURE_OPTIONS,
  hooks: CallHooks = {},
): unknown {
  if (!(error instanceof RampError)) return error;
  const message = error.message;
  if (error instanceof RampInvalidParametersError) return ApplicationFailure.nonRetryable(message, 'InvalidParameters');
  if (error instanceof RampUnauthorisedError) return ApplicationFailure.retryable(message, 'Unauthorised');
  if (error instanceof RampLegacyFailureError) return ApplicationFailure.nonRetryable(message, 'LegacyFailure');
  if (error instanceof RampSchemaError) return ApplicationFailure.nonRetryable(message, 'SchemaMismatch');
  if (error instanceof RampOutcomeUnknownError) {
    const nextRetryDelay = hooks.outcomeUnknownRetryDelayMs?.() ?? options.outcomeUnknownRetryDelayMs;
    // A delay of zero ends the retries (Temporal reads it as "no further attempt"): once the request has settled, the policy's backoff applies.
    return ApplicationFailure.create({
      message,
      type: 'OutcomeUnknown',
      ...(nextRetryDelay > 0 ? { nextRetryDelay } : {}),
    });
  }
  if (error instanceof RampFailedError)
    return hooks.isRefusal?.(error)
      ? ApplicationFailure.nonRetryable(message, 'Refused')
      : ApplicationFailure.retryable(message, 'Failed');
  if (error instanceof RampConnectionError) return ApplicationFailure.retryable(message, 'Connection');
  // Temporal reads a zero delay as "no further attempt": a wait already over takes the policy's backoff.
  if (error instanceof RampRateLimitedError)
    return ApplicationFailure.create({
      message,
      type: 'RateLimited',
      ...(error.retryAfterMs > 0 ? { nextRetryDelay: error.retryAfterMs } : {}),
    });
  return error.retryable
    ? ApplicationFailure.retryable(message, 'HttpError')
    : ApplicationFailure.nonRetryable(message, 'HttpError');
}

/** Runs a call to the service under its attempt's limits, rethrowing its errors as Temporal failures. */
export async function asActivity<T>(
  call: () => Promise<T>,
  options: FailureOptions = DEFAULT_FAILURE_OPTIONS,
  hooks: CallHooks = {},
): Promise<T> {
  const activity = currentActivity();
  try {
    const limits = activity
      ? {
          ...attemptLimits(activity, hooks.attemptStartedAt ?? Date.now()),
          ...(hooks.beforePost ? { beforePost: hooks.beforePost } : {}),
        }
      : undefined;
    const result = await (limits ? withCallLimits(limits, call) : call());
    options.health?.succeeded();
    return result;
  } catch (error) {
    // Abandoned because the attempt was cancelled: the SDK reports the cancellation, and it says nothing of the service.
    if (activity?.cancellationSignal.aborted) throw activity.cancellationSignal.reason;
    options.health?.failed(error);
    throw toTemporalFailure(error, options, hooks);
  }
}

/**
 * Whether an error says the record does not exist. The interface does not show that answer; the
 * sandbox, like many services of this kind, answers 422 with a FAILED or INVALID_PARAMETERS status
 * and a message saying "not found". Kept in one place so a deployment can change it.
 */
export function isNotFound(error: unknown): boolean {
  return (
    (error instanceof RampFailedError || error instanceof RampInvalidParametersError) &&
    /not found|does not exist/i.test(error.serviceMessage ?? error.message)
  );
}
