/**
 * Temporal Cloud's billable actions, counted from workflow histories by the published rules
 * (docs.temporal.io/cloud/actions, summarised in bench/README.md, "How actions are counted"):
 *
 * - a workflow start is one action (a client start, a continue-as-new, a child's start); a
 *   signal-with-start is one action in all, start and signal together;
 * - every signal is one action, counted where it lands (WorkflowExecutionSignaled), plus the signals a
 *   workflow sent that found no running target (SignalExternalWorkflowExecutionFailed);
 * - every activity attempt is one (the ActivityTaskStarted event carries the attempt that ran last);
 * - all local activities recorded in one workflow task completion are one (their markers share a
 *   WorkflowTaskCompleted event id);
 * - every timer started, every UpsertWorkflowSearchAttributes command, every accepted update is one;
 * - a child workflow is two: its start and its execution.
 *
 * Not in any history, so not counted here: queries (the benchmark's driver asks them; production's
 * partners need not), rejected updates, activity heartbeats that reach the server (the reconciliation
 * activities heartbeat once per page, throttled), and the schedule's two actions per scheduled run.
 */
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export const ACTION_KINDS = [
  'workflow starts',
  'signals',
  'activity attempts',
  'local-activity batches',
  'timers',
  'search-attribute upserts',
  'updates',
  'child workflows',
] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];
export type ActionCounts = Record<ActionKind, number>;

/** Marker names the TypeScript SDK (sdk-core) records for local activities. */
const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

export const noActions = (): ActionCounts => Object.fromEntries(ACTION_KINDS.map((kind) => [kind, 0])) as ActionCounts;

export function totalActions(counts: ActionCounts): number {
  return ACTION_KINDS.reduce((sum, kind) => sum + counts[kind], 0);
}

export function addActions(into: ActionCounts, more: ActionCounts): ActionCounts {
  for (const kind of ACTION_KINDS) into[kind] += more[kind];
  return into;
}

/** The billable actions of one run's history. */
export function actionsOfHistory(events: HistoryEvent[]): ActionCounts {
  const counts = noActions();
  // A signal-with-start puts its signal right after the start, before the first workflow task.
  // (Decoded protobuf messages have null, not undefined, for an absent attribute.)
  const signalWithStart =
    Boolean(events[0]?.workflowExecutionStartedEventAttributes) &&
    Boolean(events[1]?.workflowExecutionSignaledEventAttributes);
  const localActivityTasks = new Set<string>();
  for (const event of events) {
    if (event.workflowExecutionStartedEventAttributes) counts['workflow starts'] += 1;
    else if (
      event.workflowExecutionSignaledEventAttributes ||
      event.signalExternalWorkflowExecutionFailedEventAttributes
    )
      counts.signals += 1;
    else if (event.activityTaskStartedEventAttributes)
      counts['activity attempts'] += event.activityTaskStartedEventAttributes.attempt ?? 1;
    else if (event.markerRecordedEventAttributes?.markerName === LOCAL_ACTIVITY_MARKER)
      localActivityTasks.add(String(event.markerRecordedEventAttributes.workflowTaskCompletedEventId));
    else if (event.timerStartedEventAttributes) counts.timers += 1;
    else if (event.upsertWorkflowSearchAttributesEventAttributes) counts['search-attribute upserts'] += 1;
    else if (event.workflowExecutionUpdateAcceptedEventAttributes) counts.updates += 1;
    else if (event.startChildWorkflowExecutionInitiatedEventAttributes) counts['child workflows'] += 1;
  }
  if (signalWithStart) counts.signals -= 1;
  counts['local-activity batches'] = localActivityTasks.size;
  return counts;
}

/**
 * The activity that pushes a range of recorded partner events to the partner's endpoint
 * (activities/partner-event-activities.ts); the outbox schedules it after each recording.
 */
const PUSH_ACTIVITY = 'pushRecordedPartnerEvents';
/** The activity that records a batch (a local activity in runs recorded before 1.4). */
const RECORD_ACTIVITY = 'recordPartnerEvents';
/** The patch that made recording an activity (workflows/common/patches.ts): its upsert is partner events' too. */
const RECORDING_PATCH = 'partner-events-recorded-by-activity';
/** The workflow that retries a stream's deliveries (workflows/partner-events/delivery.ts). */
export const DELIVERY_WORKFLOW = 'partnerEventDelivery';

const textOf = (data: Uint8Array | null | undefined) => (data ? Buffer.from(data).toString('utf8') : '');

/** The activity type a local activity's marker names (sdk-core writes it, unencoded, in the marker's `data`). */
function localActivityTypeOf(marker: temporal.api.history.v1.IMarkerRecordedEventAttributes): string | undefined {
  try {
    const parsed = JSON.parse(textOf(marker.details?.data?.payloads?.[0]?.data)) as { activity_type?: unknown };
    return typeof parsed.activity_type === 'string' ? parsed.activity_type : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The part of one run's actions that partner events cause in a workflow that emits them: every
 * attempt of the activities that record a batch and push a recorded range, each workflow task whose
 * local activities include a recording (runs recorded before 1.4), and the upsert of the patch that
 * made recording an activity (the SDK writes one when a run first passes a patch).
 */
export function partnerEventActionsOfHistory(events: HistoryEvent[]): ActionCounts {
  const counts = noActions();
  const activityTypes = new Map<string, string>();
  const recordingTasks = new Set<string>();
  let patchUpserted = false;
  for (const event of events) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) activityTypes.set(String(event.eventId), scheduled.activityType?.name ?? '');
    const started = event.activityTaskStartedEventAttributes;
    const startedType = started ? activityTypes.get(String(started.scheduledEventId)) : undefined;
    if (startedType === PUSH_ACTIVITY || startedType === RECORD_ACTIVITY)
      counts['activity attempts'] += started?.attempt ?? 1;
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName === LOCAL_ACTIVITY_MARKER && localActivityTypeOf(marker) === RECORD_ACTIVITY)
      recordingTasks.add(String(marker.workflowTaskCompletedEventId));
    const changeVersions =
      event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.TemporalChangeVersion;
    if (!patchUpserted && changeVersions && textOf(changeVersions.data).includes(`"${RECORDING_PATCH}"`)) {
      counts['search-attribute upserts'] += 1;
      patchUpserted = true;
    }
  }
  counts['local-activity batches'] = recordingTasks.size;
  return counts;
}

/**
 * The billable actions of every run of every workflow a visibility query finds, how many runs that
 * is, and the share partner events caused (partnerEventActionsOfHistory, plus every action of the
 * delivery workflows).
 */
export async function actionsOfWorkflows(
  client: Client,
  query: string,
): Promise<{ counts: ActionCounts; runs: number; byType: Map<string, ActionCounts>; partnerEvents: ActionCounts }> {
  const counts = noActions();
  const partnerEvents = noActions();
  const byType = new Map<string, ActionCounts>();
  let runs = 0;
  for await (const execution of client.workflow.list({ query, pageSize: 1000 })) {
    const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
    const actions = actionsOfHistory(history.events ?? []);
    addActions(counts, actions);
    addActions(
      partnerEvents,
      execution.type === DELIVERY_WORKFLOW ? actions : partnerEventActionsOfHistory(history.events ?? []),
    );
    addActions(byType.get(execution.type) ?? byType.set(execution.type, noActions()).get(execution.type)!, actions);
    runs += 1;
  }
  return { counts, runs, byType, partnerEvents };
}
