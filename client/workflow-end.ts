/**
 * How a workflow ended when it did not complete (failed, terminated, timed out, cancelled), read the
 * way an operator and a partner can use it: decoded, typed, with the fields the failure names.
 *
 * Failure messages travel sealed (codec/failure-converter.js: encodeCommonAttributes), so the raw
 * history and an undecoded failure say only "Encoded failure". This module reads the close event
 * through the SDK's own `handle.result()`, which decodes it with the client's data converter (its
 * failure converter and payload codec), and turns the WorkflowFailedError into a WorkflowEnd. Every
 * command and the partner API show a workflow's end through it.
 *
 * Never customer data: the message is the failure's own (rampflow's failures name fields and reasons,
 * not values: workflows/common/checks.ts), and of the failure's details only the fields known to be
 * safe are kept (`issues`: `{path, message}`); any other detail is left out.
 */
import { WorkflowFailedError, type WorkflowExecutionDescription, type WorkflowHandle } from '@temporalio/client';
import {
  ApplicationFailure,
  CancelledFailure,
  TemporalFailure,
  TerminatedFailure,
  TimeoutFailure,
} from '@temporalio/common';
import { z } from 'zod';

/** The statuses of a workflow that ended without completing. */
export const END_STATUSES = ['FAILED', 'TERMINATED', 'TIMED_OUT', 'CANCELLED'] as const;
export type EndStatus = (typeof END_STATUSES)[number];

export interface WorkflowEnd {
  status: EndStatus;
  /** The ApplicationFailure's type (e.g. InvalidStartInput), or Terminated, WorkflowTimedOut, Cancelled. */
  type: string;
  /** Decoded: the failure's message, the operator's reason for a termination. */
  message: string;
  /** What the failure names beyond its message (for InvalidStartInput: `issues`, each `{path, message}`). */
  fields: WorkflowEndFields;
}

const IssueSchema = z.object({ path: z.string(), message: z.string() });
/** The details' fields that are shown; anything else a detail holds is left out (it could be customer data). */
const FieldsSchema = z.object({ issues: z.array(IssueSchema).optional() });
export type WorkflowEndFields = z.output<typeof FieldsSchema>;

export const isEndStatus = (status: string): status is EndStatus =>
  (END_STATUSES as readonly string[]).includes(status);

const VERB: Record<EndStatus, string> = {
  FAILED: 'failed',
  TERMINATED: 'was terminated',
  TIMED_OUT: 'timed out',
  CANCELLED: 'was cancelled',
};

/** The end a WorkflowFailedError (from `handle.result()`) reports; its cause is already decoded by the SDK. */
export function workflowEndOf(error: WorkflowFailedError): WorkflowEnd {
  const failure = error.cause;
  if (failure instanceof TerminatedFailure)
    return { status: 'TERMINATED', type: 'Terminated', message: failure.message, fields: {} };
  if (failure instanceof TimeoutFailure)
    return { status: 'TIMED_OUT', type: 'WorkflowTimedOut', message: failure.message, fields: {} };
  if (failure instanceof CancelledFailure)
    return { status: 'CANCELLED', type: 'Cancelled', message: failure.message, fields: {} };
  if (failure instanceof ApplicationFailure)
    return {
      status: 'FAILED',
      type: failure.type ?? 'ApplicationFailure',
      message: withCause(failure),
      fields: fieldsOf(failure.details),
    };
  if (failure) return { status: 'FAILED', type: failure.name, message: withCause(failure), fields: {} };
  return { status: 'FAILED', type: 'Failure', message: error.message, fields: {} };
}

/** Which run, and its status name, as describe() or a visibility listing gives them. */
export interface EndedRun {
  workflowId: string;
  runId: string;
  status: string;
}

/**
 * How the workflow `handle` points at ended, or undefined while it runs or once it completed (or
 * continued as new). Pass the run when it is at hand (`{workflowId, runId, status: description.status.name}`);
 * otherwise it is described (no worker needed).
 */
export async function readWorkflowEnd(handle: WorkflowHandle, known?: EndedRun): Promise<WorkflowEnd | undefined> {
  const run = known ?? runOf(await handle.describe());
  if (!isEndStatus(run.status)) return undefined;
  // The run described, not a later one: its close event is read and decoded by the SDK.
  try {
    await handle.client.getHandle(run.workflowId, run.runId, { followRuns: false }).result();
  } catch (error) {
    if (error instanceof WorkflowFailedError) return workflowEndOf(error);
    throw error;
  }
  return undefined;
}

export const runOf = (description: WorkflowExecutionDescription): EndedRun => ({
  workflowId: description.workflowId,
  runId: description.runId,
  status: description.status.name,
});

/** One line: `journey user-42 failed: InvalidStartInput: invalid customerJourney input: customer.email: Invalid email address`. */
export function endLine(what: string, end: WorkflowEnd): string {
  return `${what} ${VERB[end.status]}: ${end.type}: ${end.message}`;
}

/** The lines under endLine that list what the failure names (empty when it names nothing). */
export function endFieldLines(end: WorkflowEnd): string[] {
  return (end.fields.issues ?? []).map((issue) => `  issue: ${issue.path}: ${issue.message}`);
}

/** How a failure shows in JSON: its type, message and fields. */
export type EndFailure = { type: string; message: string } & WorkflowEndFields;

/** As JSON: `{status, failure: {type, message, issues?}}`. */
export function endJson(end: WorkflowEnd): { status: EndStatus; failure: EndFailure } {
  return { status: end.status, failure: { type: end.type, message: end.message, ...end.fields } };
}

/** A wrapper's message (an activity's or child's failure) with what caused it. */
function withCause(failure: Error): string {
  const cause = failure.cause;
  if (!(cause instanceof Error) || failure instanceof ApplicationFailure) return failure.message;
  const type =
    cause instanceof ApplicationFailure
      ? (cause.type ?? cause.name)
      : cause instanceof TemporalFailure
        ? cause.name
        : 'Error';
  return `${failure.message} (${type}: ${cause.message})`;
}

function fieldsOf(details: unknown[] | null | undefined): WorkflowEndFields {
  const merged: Record<string, unknown> = {};
  for (const detail of details ?? [])
    if (typeof detail === 'object' && detail !== null && !Array.isArray(detail)) Object.assign(merged, detail);
  const parsed = FieldsSchema.safeParse(merged);
  return parsed.success ? parsed.data : {};
}
