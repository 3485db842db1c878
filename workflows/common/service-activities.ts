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
import { proxyActivities, workflowInfo, type ActivityInterfaceFor } from '@temporalio/workflow';
import type { ActivityOptions } from '@temporalio/common';
import { SERVICE_TASK_QUEUE_PATCH, takesPatch } from './patches';

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
 * that moment (none when undefined), once the workflow has passed the patch.
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
    if (!takesPatch(SERVICE_TASK_QUEUE_PATCH)) return {};
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
