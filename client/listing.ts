/**
 * Reading visibility listings, as the journey, deposit and event parts of the client list them: at
 * most so many, newest first, each ended one with how it ended.
 */
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { endJson, isEndStatus, readWorkflowEnd, type EndedRun, type EndFailure } from './workflow-end';

/** At most `limit` visibility listings for `query`, newest first. */
export async function listed<T>(
  temporal: Client,
  { query, limit }: { query: string; limit: number },
  toListing: (info: WorkflowExecutionInfo) => T,
): Promise<T[]> {
  const found: T[] = [];
  for await (const info of temporal.workflow.list({ query, pageSize: Math.min(limit, 1000) })) {
    found.push(toListing(info));
    if (found.length >= limit) break;
  }
  return found;
}

/** The listing, with how its workflow ended (decoded) when it failed, was terminated, timed out or was cancelled. */
export async function withEnd<L extends EndedRun>(temporal: Client, listing: L): Promise<L & { failure?: EndFailure }> {
  if (!isEndStatus(listing.status)) return listing;
  const end = await readWorkflowEnd(temporal.workflow.getHandle(listing.workflowId), listing);
  return end ? { ...listing, failure: endJson(end).failure } : listing;
}
