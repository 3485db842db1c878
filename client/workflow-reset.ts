/**
 * Going back to a run's first workflow task: the one recourse for a workflow whose workflow tasks
 * fail every time (runbook RampflowWorkflowTaskFailures), and how a routed event is replayed
 * (client/events.ts).
 *
 * A reset ends the run and starts a new one of the same workflow id from the chosen point: the
 * events before it are kept, the workflow's code runs again from there, and the signals and updates
 * received after it are applied again. For a workflow stuck on its own history (a nondeterminism the
 * code it runs cannot replay, docs/guarantees/chaos.md) this is the way out: the new run's history
 * is written by the code that runs it.
 *
 * The first workflow task of the *current* run is the point: everything before it is in the state
 * the run was started with (a journey's carried state, a deposit's or payout's input), so the run
 * does again only what it did since its last continue-as-new. Every step it does again reads the
 * service before it acts, and every create looks its record up first (activities/creates.ts), so
 * doing a step again finds what the first time made. What a create cannot know is a request still
 * held by the service, and that one the reset would forget: the attempt's record of it lives in the
 * old run's pending activity (its heartbeat). So a workflow with any activity in flight is not reset;
 * its failing workflow task schedules nothing new, so its activities end on their own.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { explainTemporalError, RampflowUpdateRefusedError } from './errors';

const { EventType, WorkflowTaskFailedCause } = temporal.api.enums.v1;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
/** An event's id as the history gives it (a Long), handed back to the service as it came. */
type EventId = NonNullable<HistoryEvent['eventId']>;

/** What a reset of a stuck workflow did (or, with `dryRun`, would do). */
export interface StuckWorkflowReset {
  workflowId: string;
  /** The run whose workflow tasks were failing. */
  failedRunId: string;
  /** Why its last workflow task failed, as Temporal names the cause (e.g. `NON_DETERMINISTIC_ERROR`). */
  cause: string;
  /** The event the new run starts after: the failed run's first workflow task's end. */
  resetToEventId: number;
  /** The new run; absent on a dry run. */
  runId?: string;
}

/**
 * Resets the current run of `workflowId` to its first workflow task, when its workflow tasks are
 * failing and no activity of it is in flight. `what` names it as an operator does (`journey user-42`).
 *
 * The reason recorded in the history is ours, not an operator's words: it stays free of customer data.
 *
 * @throws RampflowNotFoundError when there is no such workflow
 * @throws RampflowUpdateRefusedError when it is not running, its last workflow task did not fail, or
 *   an activity of it is in flight (named, with its attempt)
 */
export async function resetStuckWorkflow(
  client: Client,
  workflowId: string,
  what: string,
  options: { dryRun?: boolean } = {},
): Promise<StuckWorkflowReset> {
  const refuse = (reason: string) => new RampflowUpdateRefusedError('reset', what, reason);
  const description = await client.workflow
    .getHandle(workflowId)
    .describe()
    .catch((error: unknown) => {
      throw explainTemporalError(error, what);
    });
  if (description.status.name !== 'RUNNING')
    throw refuse(`it is not running (${description.status.name}): there is nothing to reset`);

  const history = await client.workflow.getHandle(workflowId, description.runId).fetchHistory();
  const events = history.events ?? [];
  const failure = lastWorkflowTaskFailure(events);
  if (failure === undefined)
    throw refuse(
      'its last workflow task did not fail: there is nothing to reset (a parked workflow is resumed with retry)',
    );

  const inFlight = (description.raw.pendingActivities ?? []).map(
    (activity) => `${activity.activityType?.name ?? 'an activity'} (attempt ${activity.attempt ?? 1})`,
  );
  if (inFlight.length > 0)
    throw refuse(
      `it has activities in flight: ${inFlight.join(', ')}. A reset would forget a create the service may ` +
        'still hold and could send it again; they end on their own (nothing new is scheduled while its ' +
        'workflow tasks fail): run this again once they have (--dry-run checks without resetting)',
    );

  const resetTo = firstWorkflowTaskEnd(events);
  if (resetTo === undefined) throw refuse('its history has no workflow task to go back to');
  const stuck = { workflowId, failedRunId: description.runId, cause: failure, resetToEventId: Number(resetTo) };
  if (options.dryRun) return stuck;

  const reason = `reset by rampflow: its workflow task failed (${failure})`;
  const runId = await resetToEvent(client, workflowId, description.runId, resetTo, reason);
  return { ...stuck, runId };
}

/**
 * The cause of the run's last workflow task, if it failed. A reset's own failed task (the mark where
 * a new run begins) is not a failure of the code: a run just reset is not stuck.
 */
function lastWorkflowTaskFailure(events: HistoryEvent[]): string | undefined {
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const event = events[i]!;
    if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) return undefined;
    if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED) {
      const cause = event.workflowTaskFailedEventAttributes?.cause ?? 0;
      if (cause === WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW) return undefined;
      return (WorkflowTaskFailedCause[cause] ?? String(cause)).replace(/^WORKFLOW_TASK_FAILED_CAUSE_/, '');
    }
  }
  return undefined;
}

/** The id of the event that ended the run's first workflow task (completed, failed or timed out). */
function firstWorkflowTaskEnd(events: HistoryEvent[]): EventId | undefined {
  const end = events.find(
    (event) =>
      event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED ||
      event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED ||
      event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
  );
  return end?.eventId ?? undefined;
}

/** Resets the run to the workflow task ended by `eventId`; signals and updates after it are applied again. */
export async function resetToEvent(
  client: Client,
  workflowId: string,
  runId: string,
  eventId: EventId,
  reason: string,
): Promise<string> {
  const response = await client.workflowService.resetWorkflowExecution({
    namespace: client.options.namespace,
    workflowExecution: { workflowId, runId },
    workflowTaskFinishEventId: eventId,
    reason,
    requestId: randomUUID(),
  });
  return response.runId ?? '';
}
