/**
 * Where the service queue's slots went: for each activity type on `<queue>-service`, the attempts
 * recorded, the seconds they held a worker's slot (started to closed), and the seconds they waited on
 * the server's queue (scheduled to started), read from the workflows' histories.
 *
 * Why: each worker runs only about a second of its calls' worth of service activities at once
 * (workers/worker.ts, serviceActivitiesAtOnce), so an activity that holds its slot while it waits on
 * something other than the service (a journey's answer, a settle delay) leaves the queue's backlog
 * waiting behind it. The long run of 2026-11-28 dispatched 3 to 4 activities a second with 20 allowed;
 * this is the line that says which activities held the slots.
 *
 * Temporal records a retried activity's start with its last attempt only, so the figures are those of
 * the attempts that ended the activity (or, still running, none).
 */
import type { temporal as proto } from '@temporalio/proto';
import { tsToMs } from '@temporalio/common/lib/time';

type HistoryEvent = proto.api.history.v1.IHistoryEvent;

export interface SlotUse {
  activityType: string;
  attempts: number;
  /** Started to closed, summed over the attempts. */
  heldMs: number;
  /** The longest single hold. */
  longestMs: number;
  /** Scheduled to started (the last attempt's start: so it includes earlier attempts and their retry waits). */
  queuedMs: number;
}

/** Adds the service-queue activities of one history to `uses` (by activity type). */
export function addSlotUse(events: readonly HistoryEvent[], uses: Map<string, SlotUse>, serviceQueue: string): void {
  const byId = new Map<number, HistoryEvent>();
  for (const event of events) byId.set(Number(event.eventId), event);
  for (const event of events) {
    const closed =
      event.activityTaskCompletedEventAttributes ??
      event.activityTaskFailedEventAttributes ??
      event.activityTaskTimedOutEventAttributes ??
      event.activityTaskCanceledEventAttributes;
    if (!closed?.scheduledEventId || !closed.startedEventId) continue;
    const scheduled = byId.get(Number(closed.scheduledEventId));
    const started = byId.get(Number(closed.startedEventId));
    const attributes = scheduled?.activityTaskScheduledEventAttributes;
    if (!attributes || !started || attributes.taskQueue?.name !== serviceQueue) continue;
    const activityType = attributes.activityType?.name ?? '?';
    const use = uses.get(activityType) ?? { activityType, attempts: 0, heldMs: 0, longestMs: 0, queuedMs: 0 };
    const held = tsToMs(event.eventTime) - tsToMs(started.eventTime);
    use.attempts += 1;
    use.heldMs += held;
    use.longestMs = Math.max(use.longestMs, held);
    use.queuedMs += tsToMs(started.eventTime) - tsToMs(scheduled.eventTime);
    uses.set(activityType, use);
  }
}

/** One line: the activity types that held the most slot-seconds, with their counts, mean and longest hold. */
export function describeSlotUse(uses: Iterable<SlotUse>, top = 6): string {
  const sorted = [...uses].sort((a, b) => b.heldMs - a.heldMs);
  const total = sorted.reduce((sum, use) => sum + use.heldMs, 0);
  if (sorted.length === 0) return 'service queue slots: no activity recorded';
  const parts = sorted.slice(0, top).map((use) => {
    const seconds = (ms: number) => (ms / 1000).toFixed(ms < 10_000 ? 1 : 0);
    return `${use.activityType} ${use.attempts} x ${seconds(use.heldMs / use.attempts)} s (${Math.round((100 * use.heldMs) / Math.max(1, total))} %, longest ${seconds(use.longestMs)} s, queued ${seconds(use.queuedMs / use.attempts)} s)`;
  });
  return `service queue slots, by activity (attempts x mean hold): ${parts.join('; ')}`;
}
