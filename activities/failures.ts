/**
 * Maps the client's typed errors to Temporal failures the workflows can read by type.
 *
 * - InvalidParameters, Unauthorised, LegacyFailure, SchemaMismatch: non-retryable; the workflow parks.
 * - Failed, Connection, HttpError (5xx/429): retryable with the activity's backoff.
 * - OutcomeUnknown (a create that may have reached the service): retryable, and safe to retry
 *   because every activity that creates looks the object up first.
 */
import { ApplicationFailure } from '@temporalio/activity';
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

export function toTemporalFailure(error: unknown): unknown {
  if (!(error instanceof RampError)) return error;
  const message = error.message;
  if (error instanceof RampInvalidParametersError) return ApplicationFailure.nonRetryable(message, 'InvalidParameters');
  if (error instanceof RampUnauthorisedError) return ApplicationFailure.nonRetryable(message, 'Unauthorised');
  if (error instanceof RampLegacyFailureError) return ApplicationFailure.nonRetryable(message, 'LegacyFailure');
  if (error instanceof RampSchemaError) return ApplicationFailure.nonRetryable(message, 'SchemaMismatch');
  if (error instanceof RampOutcomeUnknownError) return ApplicationFailure.retryable(message, 'OutcomeUnknown');
  if (error instanceof RampFailedError) return ApplicationFailure.retryable(message, 'Failed');
  if (error instanceof RampConnectionError) return ApplicationFailure.retryable(message, 'Connection');
  return error.retryable ? ApplicationFailure.retryable(message, 'HttpError') : ApplicationFailure.nonRetryable(message, 'HttpError');
}

/** Runs a call to the service, rethrowing its errors as Temporal failures. */
export async function asActivity<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toTemporalFailure(error);
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
