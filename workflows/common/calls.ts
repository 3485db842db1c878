/**
 * How workflows call the service: retry policies and activity options, the service task queue and its
 * priorities, and what a failed call means (retry, park, or absent).
 */
import {
  ActivityFailure,
  type ActivityInterfaceFor,
  ApplicationFailure,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { Hints } from './trust';
import type { ActivityOptions, RetryPolicy } from '@temporalio/common';

/**
 * How workflows read activity failures. Activities turn the client's typed errors into application
 * failures whose type names the error; the types a retry cannot fix park the workflow for an operator.
 */
/**
 * Failure types the activities raise as non-retryable (see activities/failures.ts). UNAUTHORISED is
 * not among them: bad credentials or a clock far off fail every call alike, so it is one incident for
 * the worker to report, and calls keep retrying until it is fixed rather than parking one by one.
 * `Refused` is a create the service kept answering FAILED for longer than the worker's bound
 * (activities/creates.ts): the workflow parks with the service's words.
 */
export const NON_RETRYABLE_SERVICE_ERRORS = ['InvalidParameters', 'NotFound', 'Conflict', 'Refused'] as const;

/** A wait that was parked at its deadline, and how the parked workflow can see it come true later. */
export interface LateFact {
  what: string;
  settled: () => boolean;
  poll: () => Promise<void>;
  firstIntervalMs: number;
  /** Deliveries' hints that the fact may have come true: looked at at once (workflows/common/waiting.ts). */
  hints?: Hints;
}

/** Thrown inside workflow code to park the current stage for an operator. */
export class ParkRequest extends Error {
  constructor(
    readonly reason: string,
    readonly errorType?: string,
    /** Set when the park is a deadline: the fact may still come true, and then the stage resumes by itself. */
    readonly lateFact?: LateFact,
  ) {
    super(reason);
    this.name = 'ParkRequest';
  }

  /**
   * The service decided against the fact the stage waits for: a trade that ended unsettled, a payment
   * that failed, an account it rejected. A retry reads again; nothing comes true by itself.
   */
  static decidedByService(
    reason: string,
    errorType: 'TradeNotSettled' | 'PaymentFailed' | 'Rejected' | 'CustomerNotServed',
  ): ParkRequest {
    return new ParkRequest(reason, errorType);
  }

  /** The park a run handed on at continue-as-new, taken up as it was (a park with no late fact). */
  static carried(attention: { reason: string; errorType?: string }): ParkRequest {
    return new ParkRequest(attention.reason, attention.errorType);
  }
}

/**
 * The park request an activity failure calls for: a non-retryable service error, or a retryable one
 * whose attempts ran out (the service kept failing). Anything else (a bug, a cancellation) is rethrown.
 */
export function parkRequestFor(error: unknown, doing: string): ParkRequest {
  if (error instanceof ActivityFailure) {
    const cause = error.cause;
    if (cause instanceof ApplicationFailure) {
      return new ParkRequest(`${doing}: ${cause.message}`, cause.type ?? undefined);
    }
    return new ParkRequest(`${doing}: ${cause?.message ?? error.message}`, cause?.name);
  }
  throw error;
}

/** Runs an activity call and turns its failure into a park request saying what was being done. */
export async function orPark<T>(doing: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw parkRequestFor(error, doing);
  }
}

/**
 * Whether a read failed because the service has no such record: its "not found" (NotFound, made final
 * by a confirming read), or a refusal of the id itself (InvalidParameters: a made-up id of the wrong
 * shape). Used for records a delivery named, where absence is an answer, never a reason to park.
 */
export function isAbsent(error: unknown): boolean {
  const cause = error instanceof ActivityFailure ? error.cause : undefined;
  return cause instanceof ApplicationFailure && (cause.type === 'NotFound' || cause.type === 'InvalidParameters');
}

/**
 * Retry policies for activity calls. Transient failures (connection errors, 5xx, the service's
 * FAILED, UNAUTHORISED) retry with backoff; the failure types a retry cannot fix are not retried and
 * park the workflow instead.
 */
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

/**
 * Where the activities that call the ramp service run, and in what order (README, "Calls to the
 * service are rate-limited").
 *
 * The service's rate limits are unknown and shared by the whole partner. Each worker's client keeps
 * its calls to its share of RAMP_MAX_CALLS_PER_SECOND (ramp/call-pacing.ts); the activities run on a
 * task queue of their own, `<workflow's task queue>-service`, which the workers poll with
 * `maxTaskQueueActivitiesPerSecond` (workers/worker.ts), so that the Temporal server hands out their
 * tasks at about that rate whatever the number of workers, and a backlog (a bulk retry, a
 * reconciliation backfill) waits on the server, in priority order:
 *
 * - HIGH (1): signups (a journey creating and setting up its customer) and payouts, where a person waits;
 * - unset (the server's default, 3, or the workflow's own priority): deposits, events;
 * - LOW (5): reconciliation and journeys an operator retried in bulk.
 *
 * Histories are forever: activities scheduled before this routing existed were scheduled on the
 * workflow's own queue with no priority. The routing is behind the `service-task-queue` patch, so a
 * history recorded before it replays with the options it was recorded with, and only a run that
 * reaches the patch anew moves to the service queue. Every worker still registers every activity
 * on the workflow queue too, for those.
 */
/** The task queue of the activities that call the service, for workflows on `taskQueue`. */
export function serviceTaskQueueOf(taskQueue: string): string {
  return `${taskQueue}-service`;
}

/** Priority keys (lower goes first; the server's range is 1 to 5, 3 when unset). */
export const PRIORITY = {
  /** Signups and payouts: someone is waiting. */
  HIGH: 1,
  /** Reconciliation and bulk retries: nobody is waiting, and they come by the thousand. */
  LOW: 5,
} as const;

/**
 * Like proxyActivities, for activities that call the service: each call (plain or
 * `executeWithOptions`) goes to the service task queue with the priority `priorityKey()` gives at
 * that moment (none when undefined).
 */
export function serviceActivities<A extends object>(
  options: ActivityOptions,
  priorityKey?: () => number | undefined,
): ActivityInterfaceFor<A> {
  type Activity = ((...args: unknown[]) => Promise<unknown>) & {
    executeWithOptions(options: ActivityOptions, args: unknown[]): Promise<unknown>;
  };
  const inner = proxyActivities<A>(options) as unknown as Record<string, Activity>;
  const routing = (): ActivityOptions => {
    const key = priorityKey?.();
    return {
      taskQueue: serviceTaskQueueOf(workflowInfo().taskQueue),
      ...(key !== undefined ? { priority: { priorityKey: key } } : {}),
    };
  };
  return new Proxy({} as ActivityInterfaceFor<A>, {
    get(_, name) {
      if (typeof name !== 'string')
        throw new TypeError(`Only strings are supported for Activity types, got: ${String(name)}`);
      const activity = inner[name]!;
      const call = (...args: unknown[]) => activity.executeWithOptions(routing(), args);
      call.executeWithOptions = (overrides: ActivityOptions, args: unknown[]) =>
        activity.executeWithOptions({ ...overrides, ...routing() }, args);
      return call;
    },
  });
}
