/**
 * Starting a workflow whose ID names the thing it runs for (a customer, a payout reference): a start
 * that finds the ID taken returns the workflow that holds it, so a caller may repeat its start.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';

/** The started workflow's handle, or, when its ID is already taken (running, or ended and never started again), the existing one's. */
export async function startedOrExisting<H>(start: () => Promise<H>, existing: () => H): Promise<H> {
  try {
    return await start();
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    return existing();
  }
}
