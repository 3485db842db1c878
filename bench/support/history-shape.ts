/**
 * What a set of workflows cost in Temporal, read from their histories: events, workflow tasks and
 * billable actions (support/billable-actions.ts), per workflow type. Taken before and after a stretch
 * of work, the difference is what that work cost, whichever runs it touched.
 */
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import {
  actionsOfHistory,
  addActions,
  ACTION_KINDS,
  noActions,
  totalActions,
  type ActionCounts,
} from './billable-actions';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export interface HistoryShape {
  runs: number;
  events: number;
  /** Workflow tasks that ran (WorkflowTaskStarted events; a task failed and retried in place is recorded once). */
  workflowTasks: number;
  actions: ActionCounts;
}

export const emptyShape = (): HistoryShape => ({ runs: 0, events: 0, workflowTasks: 0, actions: noActions() });

export function shapeOfHistory(events: HistoryEvent[]): HistoryShape {
  return {
    runs: 1,
    events: events.length,
    workflowTasks: events.filter((event) => event.workflowTaskStartedEventAttributes).length,
    actions: actionsOfHistory(events),
  };
}

export function addShape(into: HistoryShape, more: HistoryShape): HistoryShape {
  into.runs += more.runs;
  into.events += more.events;
  into.workflowTasks += more.workflowTasks;
  addActions(into.actions, more.actions);
  return into;
}

/** `after` less `before`: what happened between two readings of the same workflows. */
export function shapeSince(after: HistoryShape, before: HistoryShape): HistoryShape {
  return {
    runs: after.runs - before.runs,
    events: after.events - before.events,
    workflowTasks: after.workflowTasks - before.workflowTasks,
    actions: Object.fromEntries(
      ACTION_KINDS.map((kind) => [kind, after.actions[kind] - before.actions[kind]]),
    ) as ActionCounts,
  };
}

/** Per-type differences of two readings (a type absent before counts from nothing). */
export function shapesSince(
  after: Map<string, HistoryShape>,
  before: Map<string, HistoryShape>,
): Map<string, HistoryShape> {
  return new Map([...after].map(([type, shape]) => [type, shapeSince(shape, before.get(type) ?? emptyShape())]));
}

export const actionsOf = (shape: HistoryShape): number => totalActions(shape.actions);

/** The shape of every run of every workflow the visibility query finds, by workflow type. */
export async function shapesByType(client: Client, query: string): Promise<Map<string, HistoryShape>> {
  const byType = new Map<string, HistoryShape>();
  for await (const execution of client.workflow.list({ query, pageSize: 1000 })) {
    const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
    addShape(
      byType.get(execution.type) ?? byType.set(execution.type, emptyShape()).get(execution.type)!,
      shapeOfHistory(history.events ?? []),
    );
  }
  return byType;
}
