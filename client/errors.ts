/**
 * The errors the rampflow client raises. Each message is one line an operator can act on; the
 * Temporal error behind it stays available as `cause`.
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { endLine, type WorkflowEnd } from './workflow-end';

/** The input was refused before anything reached Temporal; `issues` name each bad field. */
export class RampflowInputError extends Error {
  constructor(readonly issues: string[]) {
    super(issues.join('; '));
    this.name = 'RampflowInputError';
  }
}

/** No journey or deposit workflow with that id exists (or it is past the namespace's retention). */
export class RampflowNotFoundError extends Error {
  constructor(what: string, options?: ErrorOptions) {
    super(`${what} not found`, options);
    this.name = 'RampflowNotFoundError';
  }
}

/** The workflow refused an operator update (its validator said why), or the update failed. */
export class RampflowUpdateRefusedError extends Error {
  constructor(update: string, what: string, reason: string, options?: ErrorOptions) {
    super(`${update} refused by ${what}: ${reason}`, options);
    this.name = 'RampflowUpdateRefusedError';
  }
}

/**
 * The workflow has ended without completing (failed, terminated, timed out, cancelled), so it has no
 * state to read or act on; `end` says how, decoded (client/workflow-end.ts), and the message is one line:
 * `journey user-42 failed: InvalidStartInput: invalid customerJourney input: customer.email: Invalid email address`.
 */
export class RampflowWorkflowEndedError extends Error {
  constructor(
    readonly what: string,
    readonly end: WorkflowEnd,
    /** The stage it was last indexed at (RampStage), when it was. */
    readonly stage?: string,
    options?: ErrorOptions,
  ) {
    super(endLine(what, end), options);
    this.name = 'RampflowWorkflowEndedError';
  }
}

/**
 * Turns the Temporal errors a caller can cause into rampflow's own. `what` names the target the way
 * an operator knows it, e.g. `journey user-42`.
 */
export function explainTemporalError(error: unknown, what: string, update?: string): unknown {
  if (error instanceof WorkflowNotFoundError) return new RampflowNotFoundError(what, { cause: error });
  if (update && error instanceof WorkflowUpdateFailedError) {
    // The validator's (or handler's) message travels as the failure's cause; the outer message is generic.
    const reason = error.cause instanceof Error ? error.cause.message : error.message;
    return new RampflowUpdateRefusedError(update, what, reason, { cause: error });
  }
  return error;
}
