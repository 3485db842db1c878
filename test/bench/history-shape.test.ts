/**
 * The burst benchmark's reading of histories (bench/support/history-shape.ts): events, workflow tasks
 * and actions of one run, and what changed between two readings of the same workflows.
 */
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { totalActions } from '../../bench/support/billable-actions';
import { shapeOfHistory, shapesSince } from '../../bench/support/history-shape';

const event = (id: number, attributes: Record<string, unknown>) =>
  temporal.api.history.v1.HistoryEvent.fromObject({ eventId: id, ...attributes });
const started = (id: number) => event(id, { workflowExecutionStartedEventAttributes: { workflowType: { name: 'w' } } });
const signalled = (id: number) => event(id, { workflowExecutionSignaledEventAttributes: { signalName: 's' } });
const taskScheduled = (id: number) => event(id, { workflowTaskScheduledEventAttributes: {} });
const taskStarted = (id: number) => event(id, { workflowTaskStartedEventAttributes: { scheduledEventId: id - 1 } });
const taskCompleted = (id: number) => event(id, { workflowTaskCompletedEventAttributes: {} });

describe('the shape of a history', () => {
  it('counts every event, each workflow task that ran, and the actions by Temporal Cloud’s rules', () => {
    const shape = shapeOfHistory([
      started(1),
      signalled(2),
      taskScheduled(3),
      taskStarted(4),
      taskCompleted(5),
      signalled(6),
      taskScheduled(7),
      taskStarted(8),
      taskCompleted(9),
    ]);
    expect(shape).toMatchObject({ runs: 1, events: 9, workflowTasks: 2 });
    // The signal-with-start is one action with its start; the later signal is one more.
    expect(totalActions(shape.actions)).toBe(2);
  });

  it('takes a reading before from the one after, type by type; a type new since counts from nothing', () => {
    const journeyBefore = shapeOfHistory([started(1), taskScheduled(2), taskStarted(3), taskCompleted(4)]);
    const journeyAfter = shapeOfHistory([
      started(1),
      taskScheduled(2),
      taskStarted(3),
      taskCompleted(4),
      signalled(5),
      taskScheduled(6),
      taskStarted(7),
      taskCompleted(8),
    ]);
    const deposit = shapeOfHistory([started(1), signalled(2), taskScheduled(3), taskStarted(4), taskCompleted(5)]);
    const since = shapesSince(
      new Map([
        ['journey', journeyAfter],
        ['deposit', deposit],
      ]),
      new Map([['journey', journeyBefore]]),
    );
    expect(since.get('journey')).toMatchObject({ runs: 0, events: 4, workflowTasks: 1 });
    expect(totalActions(since.get('journey')!.actions)).toBe(1);
    expect(since.get('deposit')).toMatchObject({ runs: 1, events: 5, workflowTasks: 1 });
  });
});
