/**
 * Every history on the run's server, read once after the run came to rest: what the slots line
 * (chaos/service-slots.ts) and the nondeterminism row read. A workflow removed meanwhile (retention,
 * the run's deletes) is passed over.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal as proto } from '@temporalio/proto';

type History = proto.api.history.v1.IHistory;
type HistoryEvent = proto.api.history.v1.IHistoryEvent;

export interface ReadHistory {
  workflowId: string;
  runId: string;
  type: string;
  history: History;
}

/** How many histories are read at once. */
const READ_AT_ONCE = 8;
/** How often a long read says how far it got (a run of 1,000 customers holds tens of thousands of runs). */
export const HISTORIES_PROGRESS_EVERY_MS = 10_000;

/**
 * Calls `visit` with each workflow's history (every run the server still holds), and `progress` every
 * HISTORIES_PROGRESS_EVERY_MS while it reads, with the runs read so far and the runs listed.
 */
export async function readEveryHistory(
  client: Client,
  visit: (read: ReadHistory) => void,
  progress: (read: number, listed: number) => void = () => {},
): Promise<void> {
  const executions: { workflowId: string; runId: string; type: string }[] = [];
  let next = 0;
  let done = 0;
  const ticker = setInterval(() => progress(done, executions.length), HISTORIES_PROGRESS_EVERY_MS);
  try {
    for await (const execution of client.workflow.list()) executions.push(execution);
    await Promise.all(
      Array.from({ length: READ_AT_ONCE }, async () => {
        while (next < executions.length) {
          const execution = executions[next++]!;
          try {
            const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
            visit({ ...execution, history });
          } catch {
            // Removed meanwhile: nothing to read.
          }
          done += 1;
        }
      }),
    );
  } finally {
    clearInterval(ticker);
  }
}

const NON_DETERMINISTIC = proto.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR;

/** The message of the history's first workflow task failed for nondeterminism, if any. */
export function nondeterminismIn(events: readonly HistoryEvent[]): string | undefined {
  for (const event of events) {
    const failed = event.workflowTaskFailedEventAttributes;
    if (
      failed &&
      (failed.cause === NON_DETERMINISTIC || /TMPRL1100|[Nn]ondeterminism/.test(failed.failure?.message ?? ''))
    )
      return (failed.failure?.message ?? 'nondeterminism').split('\n')[0];
  }
  return undefined;
}

/** The file beside the kept histories that holds the payload keys the run made (chaos/run-keys.ts). */
export const KEPT_KEYS_FILE = 'payload-keys';

/**
 * Keeps the histories of workflows that failed for nondeterminism, as the replayer reads them
 * (`historyToJSON`), in a folder of the run's own under the system's temporary folder; returns the
 * evidence, one line each, with where its history is. Their payloads stay encrypted with the run's
 * RAMPFLOW_PAYLOAD_KEYS, and a replay needs the same keys: when the run made them itself (`keys`),
 * they are written beside the histories (KEPT_KEYS_FILE, readable by the owner only); a caller's own
 * keys are not (it has them).
 */
export function keepNondeterministic(found: readonly ReadHistory[], seed: number, keys?: string): string[] {
  if (found.length === 0) return [];
  const folder = join(tmpdir(), `rampflow-chaos-${seed}-nondeterminism-${Date.now()}`);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  if (keys !== undefined) writeFileSync(join(folder, KEPT_KEYS_FILE), keys, { mode: 0o600 });
  const sealedWith = keys !== undefined ? `keys: ${join(folder, KEPT_KEYS_FILE)}` : 'keys: your RAMPFLOW_PAYLOAD_KEYS';
  return found.map(({ workflowId, runId, type, history }) => {
    const file = join(folder, `${workflowId.replace(/[^A-Za-z0-9._-]/g, '_')}-${runId}.json`);
    writeFileSync(file, historyToJSON(history));
    return `${type} ${workflowId}: ${nondeterminismIn(history.events ?? []) ?? ''} (history: ${file}; ${sealedWith})`;
  });
}
