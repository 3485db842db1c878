/**
 * The bench's reading of Temporal Cloud's action rules (bench/support/billable-actions.ts) on
 * histories built as the SDK decodes them (protobuf messages, whose absent attributes are null).
 */
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { actionsOfHistory, partnerEventActionsOfHistory, totalActions } from '../../bench/support/billable-actions';

const event = (id: number, attributes: Record<string, unknown>) => temporal.api.history.v1.HistoryEvent.fromObject({ eventId: id, ...attributes });
const started = (id: number) => event(id, { workflowExecutionStartedEventAttributes: { workflowType: { name: 'w' } } });
const signalled = (id: number) => event(id, { workflowExecutionSignaledEventAttributes: { signalName: 's' } });
const taskScheduled = (id: number) => event(id, { workflowTaskScheduledEventAttributes: {} });
const taskCompleted = (id: number) => event(id, { workflowTaskCompletedEventAttributes: {} });
const localActivity = (id: number, taskCompletedId: number) => event(id, { markerRecordedEventAttributes: { markerName: 'core_local_activity', workflowTaskCompletedEventId: taskCompletedId } });

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
    expect(counts).toMatchObject({ 'local-activity batches': 2, 'activity attempts': 3, timers: 1, 'search-attribute upserts': 1, updates: 1 });
    expect(totalActions(counts)).toBe(9);
  });

  it('counts partner events\' share: every publishPartnerEvents attempt, and the first upsert naming the partner-events patch', () => {
    const scheduled = (id: number, name: string) => event(id, { activityTaskScheduledEventAttributes: { activityType: { name } } });
    const attempt = (id: number, scheduledEventId: number, n: number) => event(id, { activityTaskStartedEventAttributes: { scheduledEventId, attempt: n } });
    const changeVersion = (id: number, patches: string[]) =>
      event(id, { upsertWorkflowSearchAttributesEventAttributes: { searchAttributes: { indexedFields: { TemporalChangeVersion: { data: Buffer.from(JSON.stringify(patches)) } } } } });
    const counts = partnerEventActionsOfHistory([
      started(1),
      changeVersion(2, ['other-patch-0']),
      changeVersion(3, ['other-patch-0', 'partner-events-0']),
      scheduled(4, 'publishPartnerEvents'),
      attempt(5, 4, 2),
      scheduled(6, 'readCustomer'),
      attempt(7, 6, 1),
      changeVersion(8, ['other-patch-0', 'partner-events-0', 'later-patch-0']),
      scheduled(9, 'publishPartnerEvents'),
      attempt(10, 9, 1),
    ]);
    expect(counts).toMatchObject({ 'activity attempts': 3, 'search-attribute upserts': 1 });
    expect(totalActions(counts)).toBe(4);
  });
});
