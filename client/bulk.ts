/**
 * Operators acting on a set of parked workflows at once (`rampflow journey retry --all`, ...): the
 * set comes from visibility, then each workflow gets the same update the single-workflow command
 * sends, at most `concurrency` at a time.
 *
 * Why not Temporal's batch operations: a batch can signal, cancel, terminate, reset or delete
 * workflows, but it cannot send an update, and `retry` and `cancel` are updates on purpose: the
 * workflow's validator decides whether they apply and answers. Sent as a signal, a retry would be
 * accepted by every workflow, silently ignored by those that moved on meanwhile, and the operator
 * could not tell what was done from what was refused. A batch also runs one at a time per namespace
 * by default (`frontend.MaxConcurrentBatchOperationPerNamespace`), and the `--error-type` filter needs
 * each workflow's state query first, which a batch cannot do. The loop costs what a batch would (one
 * update per workflow) and keeps every workflow's own answer.
 */
import { RampflowUpdateRefusedError } from './errors';

/** The default number of workflows updated at once: enough to finish thousands in minutes, gentle on the frontend. */
export const DEFAULT_BULK_CONCURRENCY = 8;

export interface BulkOptions {
  /** Count and list what would be acted on, changing nothing. */
  dryRun?: boolean;
  /** Workflows updated at once (default 8). */
  concurrency?: number;
  /** Called after each workflow is settled (done, refused, failed or skipped). */
  onProgress?: (progress: BulkProgress) => void;
}

export interface BulkProgress {
  /** Workflows visibility listed for the action. */
  listed: number;
  /** Of those, the ones looked at so far; equal to `listed` at the end. */
  settled: number;
  /** Of those, the ones the action applies to (after the `errorType` filter); in a dry run, what would be acted on. */
  matched: number;
  done: number;
  /** Refused by the workflow: it moved on (no longer parked) or ended since it was listed. */
  refused: number;
  /** The update or the state query failed (connection, timeout, no worker answering). */
  failed: number;
  /** Their attention's error type is not the one asked for (or they are no longer parked). */
  skipped: number;
}

export interface BulkTarget {
  /** The externalId of a journey, the depositId of a deposit. */
  id: string;
  errorType?: string;
  reason?: string;
}

export interface BulkReport extends BulkProgress {
  dryRun: boolean;
  /** In a dry run, what would be acted on. Empty otherwise. */
  wouldAct: BulkTarget[];
  refusals: { id: string; reason: string }[];
  failures: { id: string; error: string }[];
}

/** The one action a bulk run applies to each workflow, and how it reads a workflow's parking. */
export interface BulkAction {
  /** Asked only when the run filters by error type or is a dry run with that filter. */
  attentionOf: (id: string) => Promise<{ errorType?: string; reason?: string } | undefined>;
  apply: (id: string) => Promise<unknown>;
}

/** Runs `work` over `items`, at most `concurrency` at once. `work` must not throw. */
export async function forEachBounded<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, lane));
}

/** The error's message and its causes' (`Workflow Update failed: 9 FAILED_PRECONDITION: ...`): a failure says why. */
function messageOf(error: unknown): string {
  const said: string[] = [];
  let at: unknown = error;
  while (at instanceof Error && said.length < 4) {
    said.push(at.message);
    at = at.cause;
  }
  if (said.length === 0) said.push(typeof error === 'string' ? error : JSON.stringify(error));
  return said.join(': ');
}

/**
 * Applies `action` to each listed id. With `errorType`, a workflow is acted on only when its state's
 * attention names that error type (read with its state query, since it is not a search attribute).
 */
export async function runBulk(
  ids: readonly string[],
  action: BulkAction,
  errorType: string | undefined,
  options: BulkOptions = {},
): Promise<BulkReport> {
  const report: BulkReport = {
    listed: ids.length,
    settled: 0,
    matched: 0,
    done: 0,
    refused: 0,
    failed: 0,
    skipped: 0,
    dryRun: options.dryRun ?? false,
    wouldAct: [],
    refusals: [],
    failures: [],
  };
  const progress = (): void => {
    const { listed, settled, matched, done, refused, failed, skipped } = report;
    options.onProgress?.({ listed, settled, matched, done, refused, failed, skipped });
  };

  await forEachBounded(ids, options.concurrency ?? DEFAULT_BULK_CONCURRENCY, async (id) => {
    try {
      let target: BulkTarget = { id };
      if (errorType !== undefined) {
        const attention = await action.attentionOf(id);
        if (attention?.errorType !== errorType) {
          report.skipped++;
          return;
        }
        target = { id, errorType, ...(attention.reason ? { reason: attention.reason } : {}) };
      }
      report.matched++;
      if (report.dryRun) {
        report.wouldAct.push(target);
        return;
      }
      await action.apply(id);
      report.done++;
    } catch (error) {
      if (error instanceof RampflowUpdateRefusedError) {
        report.refused++;
        report.refusals.push({ id, reason: error.message });
      } else {
        report.failed++;
        report.failures.push({ id, error: messageOf(error) });
      }
    } finally {
      report.settled++;
      progress();
    }
  });
  return report;
}
