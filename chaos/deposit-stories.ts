/**
 * What a deposit's workflow says of itself, for the evidence that names the deposit: each of its runs,
 * how it ended and why (the reason names the path: a refund "after it was confirmed", "after its trade
 * was created" or "after its trade settled"). The run's histories are gone once the run ends, so this
 * is read while the stack still stands, and the next finding starts from the path rather than a guess.
 */
import type { Client } from '@temporalio/client';
import { depositWorkflowId } from '../workflows/common/messages';

/** Evidence lines told of at most: beyond, the lines stand as they are. */
const TOLD_OF = 10;
const DEPOSIT_ID = /deposit ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/;

/** Each line that names a deposit, with its workflow's runs appended: `status stage "reason"` each. */
export async function withDepositStories(client: Client, evidence: readonly string[]): Promise<string[]> {
  return Promise.all(
    evidence.map(async (line, index) => {
      const depositId = DEPOSIT_ID.exec(line)?.[1];
      if (index >= TOLD_OF || depositId === undefined) return line;
      return `${line}; its workflow: ${await storyOf(client, depositId)}`;
    }),
  );
}

async function storyOf(client: Client, depositId: string): Promise<string> {
  const runs: string[] = [];
  try {
    const workflowId = depositWorkflowId(depositId);
    for await (const execution of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
      let told: string = execution.status.name;
      if (execution.status.name === 'COMPLETED') {
        const outcome = (await client.workflow.getHandle(workflowId, execution.runId).result()) as {
          stage?: string;
          reason?: string;
        };
        told = `${outcome.stage ?? '?'} "${outcome.reason ?? ''}"`;
      }
      runs.push(`${execution.startTime.toISOString().slice(11, 19)} ${told}`);
    }
  } catch (error) {
    return `unread (${error instanceof Error ? error.message : String(error)})`;
  }
  return runs.length > 0 ? runs.reverse().join(', then ') : 'no run';
}
