/**
 * Why the parked rows of `journey list`, `deposit list` and `payout list` are parked. Visibility
 * indexes the stage, not the reason, so each running row listed in NEEDS_ATTENTION has its workflow's
 * state read (a bounded number at a time); other rows cost nothing.
 */
import type { Attention } from '../client';
import { forEachBounded } from '../client/bulk';

const READS_AT_ONCE = 8;
/**
 * How long one read may take. A query is answered by a worker: with none polling (workers down, or
 * rows of a task queue no worker serves) it waits for the server's own timeout, so each read runs
 * under a deadline of its own, and the first that runs out stops the others from being tried.
 */
export const READ_DEADLINE_MS = 5_000;

/** Runs a Temporal call under a deadline (the client's Connection.withDeadline): the call and its retries end there. */
export type WithDeadline = <R>(deadline: number, call: () => Promise<R>) => Promise<R>;

/** A listed row, with its attention when it is parked, or why that could not be read. */
export type WithReason<T> = T & { attention?: Attention; attentionNotRead?: string };

/** Parked and still running: an ended workflow keeps the stage it was last indexed at, and its end says why. */
export const isParked = (row: { stage?: string | undefined; status: string }): boolean =>
  row.stage === 'NEEDS_ATTENTION' && row.status === 'RUNNING';

/** The deadline a list's reads run under: the CLI's Temporal connection's. */
export const readDeadline =
  (rampflow: {
    temporal: { connection: { withDeadline: <R>(deadline: number, call: () => Promise<R>) => Promise<R> } };
  }): WithDeadline =>
  (deadline, call) =>
    rampflow.temporal.connection.withDeadline(deadline, call);

/** A list's rows, each parked one with its attention read (or why it could not be). */
export async function withParkedReasons<T extends { stage?: string | undefined; status: string }>(
  rows: readonly T[],
  attentionOf: (row: T) => Promise<Attention | undefined>,
  withDeadline: WithDeadline,
): Promise<WithReason<T>[]> {
  const read: WithReason<T>[] = rows.map((row) => ({ ...row }));
  const parked = read.filter(isParked);
  let unanswered: string | undefined;
  await forEachBounded(parked, READS_AT_ONCE, async (row) => {
    if (unanswered !== undefined) return void (row.attentionNotRead = unanswered);
    try {
      const attention = await withDeadline(Date.now() + READ_DEADLINE_MS, () => attentionOf(row));
      // Moved on since visibility indexed it: nothing to show.
      if (attention) row.attention = attention;
    } catch (error) {
      row.attentionNotRead = error instanceof Error ? error.message : String(error);
      if (isDeadlineExceeded(error))
        unanswered = row.attentionNotRead = `no worker answered within ${READ_DEADLINE_MS / 1000} s`;
    }
  });
  return read;
}

/** A gRPC DEADLINE_EXCEEDED (code 4), however the client wrapped it. */
function isDeadlineExceeded(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if ((cause as { code?: unknown }).code === 4 || /deadline exceeded/i.test(cause.message)) return true;
  }
  return false;
}

/** The column `PARKED BECAUSE`: the error type and the whole reason, `-` for a row that is not parked. */
export function parkedBecause(row: { attention?: Attention; attentionNotRead?: string }): string {
  if (row.attention) return `${row.attention.errorType ? `${row.attention.errorType}: ` : ''}${row.attention.reason}`;
  if (row.attentionNotRead !== undefined) return `(reason not read: ${row.attentionNotRead})`;
  return '-';
}
