/**
 * Retry policies for activity calls. Transient failures (connection errors, 5xx, the service's
 * FAILED, UNAUTHORISED) retry with backoff; the failure types a retry cannot fix are not retried and
 * park the workflow instead.
 */
import type { ActivityOptions, RetryPolicy } from '@temporalio/common';
import { NON_RETRYABLE_SERVICE_ERRORS } from './service-failures';

/**
 * Calls that must get through: attempts until they succeed (no maximumAttempts), the backoff capped
 * at 5 minutes. A service that is down for hours, or refuses our credentials until a rotated key
 * reaches the worker, is one incident the worker reports (activities/service-health.ts), not a park
 * per workflow; every call resumes by itself once the cause is fixed.
 */
export const ACTIVITY_RETRY: RetryPolicy = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '5 minutes',
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
export const changeOptions = (summary: string): ActivityOptions => ({
  startToCloseTimeout: '1 minute',
  retry: ACTIVITY_RETRY,
  summary,
});

/** Options for a read the workflow cannot go on without (the ACTIVITY_RETRY policy). */
export const patientReadOptions = (summary: string): ActivityOptions => ({
  startToCloseTimeout: '30 seconds',
  retry: ACTIVITY_RETRY,
  summary,
});

/** Options for a poll of the service, with the summary the Web UI shows for it. */
export const readOptions = (summary: string): ActivityOptions => ({
  startToCloseTimeout: '30 seconds',
  retry: POLL_RETRY,
  summary,
});

/**
 * Options for a search of a list without a filter for what is sought (activities/list-search.ts):
 * an attempt reads a slice of pages and heartbeats where it is; a long list takes several attempts,
 * each resuming from the last one's heartbeat (their retries come a second apart, whatever the
 * backoff). The heartbeat timeout notices a dead worker within seconds, so its slice is read again,
 * not the whole list. Sixty attempts cover about 1,200 pages beyond the first slice; a search the
 * list's creation-time bound stops early needs one.
 */
export const listSearchOptions = (summary: string): ActivityOptions => ({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '20 seconds',
  retry: { ...POLL_RETRY, maximumAttempts: 60 },
  summary,
});
