/**
 * Retry policies for activity calls. Transient failures (connection errors, 5xx, the service's
 * FAILED) retry with backoff; the failure types a retry cannot fix are not retried and park the
 * workflow instead. When even transient failures outlast the attempts, the workflow parks too.
 */
import type { ActivityOptions, RetryPolicy } from '@temporalio/common';
import { NON_RETRYABLE_SERVICE_ERRORS } from './service-failures';

/** About an hour of attempts (backoff capped at 5 minutes) for calls that change the service. */
export const ACTIVITY_RETRY: RetryPolicy = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '5 minutes',
  maximumAttempts: 20,
  nonRetryableErrorTypes: [...NON_RETRYABLE_SERVICE_ERRORS],
};

/** A few quick attempts for polls: the next poll or an event will do if these fail. */
export const POLL_RETRY: RetryPolicy = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '10 seconds',
  maximumAttempts: 3,
  nonRetryableErrorTypes: [...NON_RETRYABLE_SERVICE_ERRORS],
};

/** Options for a call that changes the service, with the summary the Web UI shows for it. */
export const changeOptions = (summary: string): ActivityOptions => ({ startToCloseTimeout: '1 minute', retry: ACTIVITY_RETRY, summary });

/** Options for a read of the service, with the summary the Web UI shows for it. */
export const readOptions = (summary: string): ActivityOptions => ({ startToCloseTimeout: '30 seconds', retry: POLL_RETRY, summary });
