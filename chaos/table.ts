/** The invariant table a chaos run prints: one row each, OK or the evidence. */
import type { InvariantRow } from './invariants';

export function formatTable(rows: InvariantRow[]): string {
  const width = Math.max(...rows.map((row) => row.name.length));
  const lines = rows.flatMap((row) => [
    `${row.name.padEnd(width)}  ${row.evidence.length === 0 ? 'OK' : 'BROKEN'}`,
    ...row.evidence.map((line) => `    ${line}`),
  ]);
  return ['', `${'invariant'.padEnd(width)}  result`, ...lines].join('\n');
}

export const firstBroken = (rows: InvariantRow[]): InvariantRow | undefined =>
  rows.find((row) => row.evidence.length > 0);
