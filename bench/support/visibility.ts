/** Reading many workflows' times at once from Temporal visibility, after a run (one listing, no per-workflow calls). */
import type { Client } from '@temporalio/client';
import { RampExternalId } from '../../observability/search-attributes';

export interface ListedWorkflow {
  workflowId: string;
  startTime: number;
  closeTime: number | undefined;
  externalId: string | undefined;
}

export async function listWorkflows(client: Client, query: string): Promise<ListedWorkflow[]> {
  const listed: ListedWorkflow[] = [];
  for await (const execution of client.workflow.list({ query, pageSize: 1000 })) {
    listed.push({
      workflowId: execution.workflowId,
      startTime: execution.startTime.getTime(),
      closeTime: execution.closeTime?.getTime(),
      externalId: execution.typedSearchAttributes.get(RampExternalId),
    });
  }
  return listed;
}
