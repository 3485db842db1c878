/**
 * Where the service queue's slots went (chaos/service-slots.ts): each closed activity on the service
 * queue counts its hold (started to closed) and its wait (scheduled to started) under its type; the
 * workflow queue's activities and activities still running count nothing.
 */
import { describe, expect, it } from 'vitest';
import { msNumberToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { addSlotUse, describeSlotUse, type SlotUse } from '../../chaos/service-slots';

const SERVICE = 'q-service';
const at = (seconds: number) => msNumberToTs(1_800_000_000_000 + seconds * 1000);

/** One activity's events: scheduled at `scheduledAt` on `taskQueue`, started at `startedAt`, closed (completed or failed) at `closedAt`. */
function activity(
  firstId: number,
  type: string,
  taskQueue: string,
  [scheduledAt, startedAt, closedAt]: [number, number, number | undefined],
  closedAs: 'completed' | 'failed' = 'completed',
) {
  const scheduled = {
    eventId: firstId,
    eventTime: at(scheduledAt),
    activityTaskScheduledEventAttributes: { activityType: { name: type }, taskQueue: { name: taskQueue } },
  };
  const started = { eventId: firstId + 1, eventTime: at(startedAt), activityTaskStartedEventAttributes: {} };
  const events = (list: object[]) => list.map((event) => temporal.api.history.v1.HistoryEvent.fromObject(event));
  if (closedAt === undefined) return events([scheduled]);
  const ids = { scheduledEventId: firstId, startedEventId: firstId + 1 };
  const closed =
    closedAs === 'completed'
      ? { eventId: firstId + 2, eventTime: at(closedAt), activityTaskCompletedEventAttributes: ids }
      : { eventId: firstId + 2, eventTime: at(closedAt), activityTaskFailedEventAttributes: ids };
  return events([scheduled, started, closed]);
}

describe('the service queue slots line', () => {
  it("counts each closed service-queue activity's hold and wait under its type, and nothing else", () => {
    const uses = new Map<string, SlotUse>();
    addSlotUse(
      [
        ...activity(1, 'getDeposit', SERVICE, [0, 2, 3]),
        ...activity(4, 'getDeposit', SERVICE, [10, 11, 15], 'failed'),
        ...activity(7, 'firstLookAtDeposit', SERVICE, [20, 30, 60]),
        ...activity(10, 'reportToJourney', 'q', [0, 1, 50]), // the workflow queue's: not a service slot
        ...activity(13, 'getTrade', SERVICE, [70, 71, undefined]), // still running: no start recorded yet
      ],
      uses,
      SERVICE,
    );
    expect([...uses.values()]).toEqual([
      { activityType: 'getDeposit', attempts: 2, heldMs: 5_000, longestMs: 4_000, queuedMs: 3_000 },
      { activityType: 'firstLookAtDeposit', attempts: 1, heldMs: 30_000, longestMs: 30_000, queuedMs: 10_000 },
    ]);
    expect(describeSlotUse(uses.values())).toBe(
      'service queue slots, by activity (attempts x mean hold): firstLookAtDeposit 1 x 30 s (86 %, longest 30 s, queued 10 s); getDeposit 2 x 2.5 s (14 %, longest 4.0 s, queued 1.5 s)',
    );
    expect(describeSlotUse([])).toBe('service queue slots: no activity recorded');
  });
});
