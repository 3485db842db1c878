/**
 * Reading histories as someone without the payload key would: a client with no codec, every byte
 * field turned into text, so a test can search what a database reader, a backup or an unauthorised
 * Web UI user sees.
 */
import type { Client } from '@temporalio/client';

/** Every string and every byte field of a value (a history, a describe answer), as one text. */
export function readableText(value: unknown): string {
  const parts: string[] = [];
  const walk = (node: unknown): void => {
    if (node === null || node === undefined) return;
    if (typeof node === 'string') parts.push(node);
    else if (node instanceof Uint8Array) parts.push(Buffer.from(node).toString('latin1'));
    else if (Array.isArray(node)) node.forEach(walk);
    else if (typeof node === 'object') Object.values(node).forEach(walk);
  };
  walk(value);
  return parts.join('\n');
}

/** The raw text of every history in the client's namespace matching a visibility query (all of them by default). */
export async function rawHistoriesText(client: Client, query?: string): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  // The raw listing: the SDK's list() would try to decode each workflow's (encrypted) memo.
  const { namespace } = client.options;
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.listWorkflowExecutions({
      namespace,
      query: query ?? '',
      pageSize: 100,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    for (const execution of page.executions) {
      const workflowId = execution.execution?.workflowId ?? '';
      const runId = execution.execution?.runId ?? '';
      const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
      texts.set(`${workflowId}/${runId}`, readableText(history));
    }
    nextPageToken = page.nextPageToken && page.nextPageToken.length > 0 ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return texts;
}
