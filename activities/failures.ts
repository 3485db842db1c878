/**
 * Maps the client's typed errors to Temporal failures the workflows can read by type.
 *
 * - InvalidParameters, LegacyFailure, SchemaMismatch: non-retryable; the workflow parks.
 * - Unauthorised, Failed, Connection, HttpError (5xx/429): retryable with the activity's backoff.
 *   UNAUTHORISED fails every call alike (a rotated key, a wrong secret, a clock far off): one
 *   incident for the worker to report (service-health.ts), fixed once for all, not a park per workflow.
 * - OutcomeUnknown (a create that may have reached the service): retryable, and safe to retry
 *   because every activity that creates looks the object up first, but only once the request we
 *   gave up on can no longer land (see DEFAULT_OUTCOME_UNKNOWN_RETRY_DELAY_MS).
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { ServiceHealth } from './service-health';
import {
  RampConnectionError,
  RampError,
  RampFailedError,
  RampInvalidParametersError,
  RampLegacyFailureError,
  RampOutcomeUnknownError,
  RampSchemaError,
  RampUnauthorisedError,
} from '../ramp';

/**
 * How long the retry of an outcome-unknown call waits before it looks the record up. A request whose
 * answer we stopped waiting for (a timeout, a reset, a 5xx from a gateway) may still be held by the
 * service and take effect later; a look-up before then finds nothing, creates again, and the late
 * request then makes a second record (the fault suite's timeout case showed exactly that: two
 * autoramp flows for one customer). The service has no idempotency key, so the only defence is to
 * wait out that window. The interface does not bound it; we assume the service (or its gateway)
 * gives up on a request within a minute, as common load balancers do. Overridable per worker
 * (`RampflowWorkerOptions.outcomeUnknownRetryDelayMs`) where a deployment knows better.
 */
export const DEFAULT_OUTCOME_UNKNOWN_RETRY_DELAY_MS = 60_000;

export interface FailureOptions {
  outcomeUnknownRetryDelayMs: number;
  /** Told of every call's success or failure, to report an outage once for the whole worker. */
  health?: ServiceHealth;
}

export const DEFAULT_FAILURE_OPTIONS: FailureOptions = { outcomeUnknownRetryDelayMs: DEFAULT_OUTCOME_UNKNOWN_RETRY_DELAY_MS };

export function toTemporalFailure(error: unknown, options: FailureOptions = DEFAULT_FAILURE_OPTIONS): unknown {
  if (!(error instanceof RampError)) return error;
  const message = error.message;
  if (error instanceof RampInvalidParametersError) return ApplicationFailure.nonRetryable(message, 'InvalidParameters');
  if (error instanceof RampUnauthorisedError) return ApplicationFailure.retryable(message, 'Unauthorised');
  if (error instanceof RampLegacyFailureError) return ApplicationFailure.nonRetryable(message, 'LegacyFailure');
  if (error instanceof RampSchemaError) return ApplicationFailure.nonRetryable(message, 'SchemaMismatch');
  if (error instanceof RampOutcomeUnknownError) return ApplicationFailure.create({ message, type: 'OutcomeUnknown', nextRetryDelay: options.outcomeUnknownRetryDelayMs });
  if (error instanceof RampFailedError) return ApplicationFailure.retryable(message, 'Failed');
  if (error instanceof RampConnectionError) return ApplicationFailure.retryable(message, 'Connection');
  return error.retryable ? ApplicationFailure.retryable(message, 'HttpError') : ApplicationFailure.nonRetryable(message, 'HttpError');
}

/** Runs a call to the service, rethrowing its errors as Temporal failures. */
export async function asActivity<T>(call: () => Promise<T>, options: FailureOptions = DEFAULT_FAILURE_OPTIONS): Promise<T> {
  try {
    const result = await call();
    options.health?.succeeded();
    return result;
  } catch (error) {
    options.health?.failed(error);
    throw toTemporalFailure(error, options);
  }
}

/**
 * Whether an error says the record does not exist. The interface does not show that answer; the
 * sandbox, like many services of this kind, answers 422 with a FAILED or INVALID_PARAMETERS status
 * and a message saying "not found". Kept in one place so a deployment can change it.
 */
export function isNotFound(error: unknown): boolean {
  return (error instanceof RampFailedError || error instanceof RampInvalidParametersError) && /not found|does not exist/i.test(error.serviceMessage ?? error.message);
}
