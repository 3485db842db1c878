/**
 * The bench's reading of Temporal Cloud's action rules (bench/support/billable-actions.ts) on
 * histories built as the SDK decodes them (protobuf messages, whose absent attributes are null).
 */
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { actionsOfHistory, partnerEventActionsOfHistory, totalActions } from '../../bench/support/billable-actions';

const event = (id: number, attributes: Record<string, unknown>) =>
  temporal.api.history.v1.HistoryEvent.fromObject({ eventId: id, ...attributes });
const started = (id: number) => event(id, { workflowExecutionStartedEventAttributes: { workflowType: { name: 'w' } } });
const signalled = (id: number) => event(id, { workflowExecutionSignaledEventAttributes: { signalName: 's' } });
const taskScheduled = (id: number) => event(id, { workflowTaskScheduledEventAttributes: {} });
const taskCompleted = (id: number) => event(id, { workflowTaskCompletedEventAttributes: {} });
const localActivity = (id: number, taskCompletedId: number) =>
  event(id, {
    markerRecordedEventAttributes: { markerName: 'core_local_activity', workflowTaskCompletedEventId: taskCompletedId },
  });

describe('billable actions of a history', () => {
  it('counts a signal-with-start as one action, and a signal after the first task as one more', () => {
    const counts = actionsOfHistory([started(1), signalled(2), taskScheduled(3), taskCompleted(4), signalled(5)]);
    expect(counts['workflow starts']).toBe(1);
    expect(counts.signals).toBe(1);
    expect(totalActions(counts)).toBe(2);
  });

  it('counts a plain start and its first signal as two', () => {
    expect(totalActions(actionsOfHistory([started(1), taskScheduled(2), signalled(3)]))).toBe(2);
  });

  it('counts the local activities of one workflow task completion once, and each activity attempt', () => {
    const counts = actionsOfHistory([
      started(1),
      taskScheduled(2),
      taskCompleted(3),
      localActivity(4, 3),
      localActivity(5, 3),
      taskScheduled(6),
      taskCompleted(7),
      localActivity(8, 7),
      event(9, { activityTaskStartedEventAttributes: { scheduledEventId: 8, attempt: 3 } }),
      event(10, { timerStartedEventAttributes: { timerId: '1' } }),
      event(11, { upsertWorkflowSearchAttributesEventAttributes: {} }),
      event(12, { workflowExecutionUpdateAcceptedEventAttributes: {} }),
    ]);
    expect(counts).toMatchObject({
      'local-activity batches': 2,
      'activity attempts': 3,
      timers: 1,
      'search-attribute upserts': 1,
      updates: 1,
    });
    expect(totalActions(counts)).toBe(9);
  });

  it("counts partner events' share: push attempts and the workflow tasks that record a batch", () => {
    const scheduled = (id: number, name: string) =>
      event(id, { activityTaskScheduledEventAttributes: { activityType: { name } } });
    const attempt = (id: number, scheduledEventId: number, n: number) =>
      event(id, { activityTaskStartedEventAttributes: { scheduledEventId, attempt: n } });
    const localActivity = (id: number, task: number, type: string) =>
      event(id, {
        markerRecordedEventAttributes: {
          markerName: 'core_local_activity',
          workflowTaskCompletedEventId: task,
          details: { data: { payloads: [{ data: Buffer.from(JSON.stringify({ seq: 1, activity_type: type })) }] } },
        },
      });
    const counts = partnerEventActionsOfHistory([
      started(1),
      event(2, { upsertWorkflowSearchAttributesEventAttributes: {} }),
      scheduled(4, 'pushRecordedPartnerEvents'),
      attempt(5, 4, 2),
      scheduled(6, 'readCustomer'),
      attempt(7, 6, 1),
      localActivity(10, 20, 'recordPartnerEvents'),
      localActivity(11, 20, 'recordPartnerEvents'),
      localActivity(12, 20, 'resolveRampEvent'),
      localActivity(13, 30, 'resolveRampEvent'),
      localActivity(14, 40, 'recordPartnerEvents'),
      scheduled(15, 'pushRecordedPartnerEvents'),
      attempt(16, 15, 1),
    ]);
    // push 2 + 1 attempts; recordings in tasks 20 and 40; the read, the other local activity and the upsert are not theirs.
    expect(counts).toMatchObject({
      'activity attempts': 3,
      'local-activity batches': 2,
      'search-attribute upserts': 0,
    });
    expect(totalActions(counts)).toBe(5);
  });

  it("counts partner events' share since 1.4: recording and push attempts, and the upsert of the patch that made recording an activity", () => {
    const scheduled = (id: number, name: string) =>
      event(id, { activityTaskScheduledEventAttributes: { activityType: { name } } });
    const attempt = (id: number, scheduledEventId: number, n: number) =>
      event(id, { activityTaskStartedEventAttributes: { scheduledEventId, attempt: n } });
    const changeVersions = (id: number, patches: string[]) =>
      event(id, {
        upsertWorkflowSearchAttributesEventAttributes: {
          searchAttributes: {
            indexedFields: { TemporalChangeVersion: { data: Buffer.from(JSON.stringify(patches)) } },
          },
        },
      });
    const counts = partnerEventActionsOfHistory([
      started(1),
      changeVersions(2, ['deposit-first-look']),
      changeVersions(3, ['deposit-first-look', 'partner-events-recorded-by-activity']),
      scheduled(4, 'recordPartnerEvents'),
      attempt(5, 4, 2),
      scheduled(6, 'pushRecordedPartnerEvents'),
      attempt(7, 6, 1),
      scheduled(8, 'readCustomer'),
      attempt(9, 8, 1),
      changeVersions(10, ['deposit-first-look', 'partner-events-recorded-by-activity', 'a-later-patch']),
      event(11, { upsertWorkflowSearchAttributesEventAttributes: {} }),
    ]);
    // recording 2 + push 1 attempts; the upsert that first names the patch; not the read, the other patches' upserts or a stage's.
    expect(counts).toMatchObject({
      'activity attempts': 3,
      'local-activity batches': 0,
      'search-attribute upserts': 1,
    });
    expect(totalActions(counts)).toBe(4);
  });
});
