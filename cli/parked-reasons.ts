/**
 * Why the parked rows of `journey list`, `deposit list` and `payout list` are parked. Visibility
 * indexes the stage, not the reason, so each running row listed in NEEDS_ATTENTION has its workflow's
 * state read (a bounded number at a time); other rows cost nothing.
 */
import type { Attention } from '../client';
import { forEachBounded } from '../client/bulk';

const READS_AT_ONCE = 8;

/** A listed row, with its attention when it is parked, or why that could not be read. */
export type WithReason<T> = T & { attention?: Attention; attentionNotRead?: string };

/** Parked and still running: an ended workflow keeps the stage it was last indexed at, and its end says why. */
export const isParked = (row: { stage?: string | undefined; status: string }): boolean => row.stage === 'NEEDS_ATTENTION' && row.status === 'RUNNING';

export async function withParkedReasons<T extends { stage?: string | undefined; status: string }>(rows: readonly T[], attentionOf: (row: T) => Promise<Attention | undefined>): Promise<WithReason<T>[]> {
  const read: WithReason<T>[] = rows.map((row) => ({ ...row }));
  const parked = read.filter(isParked);
  await forEachBounded(parked, READS_AT_ONCE, async (row) => {
    try {
      const attention = await attentionOf(row);
      // Moved on since visibility indexed it: nothing to show.
      if (attention) row.attention = attention;
    } catch (error) {
      row.attentionNotRead = error instanceof Error ? error.message : String(error);
    }
  });
  return read;
}

/** The column `PARKED BECAUSE`: the error type and the whole reason, `-` for a row that is not parked. */
export function parkedBecause(row: { attention?: Attention; attentionNotRead?: string }): string {
  if (row.attention) return `${row.attention.errorType ? `${row.attention.errorType}: ` : ''}${row.attention.reason}`;
  if (row.attentionNotRead !== undefined) return `(reason not read: ${row.attentionNotRead})`;
  return '-';
}
