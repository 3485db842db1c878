/**
 * Calls on one workflow whose errors an operator can read: not found, refused updates, and a workflow
 * that has ended without completing, with its decoded reason (client/workflow-end.ts). Shared by the
 * journey, deposit and payout clients.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { RampStage } from '../observability/search-attributes';
import { explainTemporalError, RampflowUpdateRefusedError, RampflowWorkflowEndedError } from './errors';
import { readWorkflowEnd, runOf } from './workflow-end';

/**
 * `call(handle)`, its Temporal errors turned into rampflow's. `what` names the workflow as an operator
 * knows it (`journey user-42`); `update` names the update the call sends, if it sends one.
 */
export async function explained<H extends WorkflowHandle, T>(
  handle: H,
  what: string,
  call: (handle: H) => Promise<T>,
  update?: string,
): Promise<T> {
  try {
    return await call(handle);
  } catch (error) {
    // The server answers an update to a finished workflow as if it did not exist; say which it is, and how it ended.
    if (update && error instanceof WorkflowNotFoundError) {
      const ended = await handle.describe().catch(() => undefined);
      if (ended) {
        const end = await readWorkflowEnd(handle, runOf(ended)).catch(() => undefined);
        const how = end ? `${end.status}, ${end.type}: ${end.message}` : ended.status.name;
        throw new RampflowUpdateRefusedError(update, what, `it has already ended (${how})`, { cause: error });
      }
    }
    throw explainTemporalError(error, what, update);
  }
}

/**
 * The workflow's state from `query`, unless it has ended without completing: then a
 * RampflowWorkflowEndedError with the decoded reason. Asked first (describe needs no worker), so a
 * failed or terminated workflow is never replayed for a query it may not answer.
 */
export function stateOrEnd<H extends WorkflowHandle, T>(
  handle: H,
  what: string,
  query: (handle: H) => Promise<T>,
): Promise<T> {
  return explained(handle, what, async (described) => {
    const description = await described.describe();
    const end = await readWorkflowEnd(described, runOf(description));
    if (end) throw new RampflowWorkflowEndedError(what, end, description.typedSearchAttributes.get(RampStage));
    return query(described);
  });
}
