/** The bench table: each figure with its unit and the method that produced it. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';

export interface Figure {
  /** What is measured, e.g. "signatures per second". */
  name: string;
  value: number;
  unit: string;
  /** How it was measured, in one line. */
  method: string;
  /** The target, when it sets one, e.g. ">= 100000". */
  target?: string;
  /** Whether the target is met; undefined when there is none. */
  met?: boolean;
}

export function machine(): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}`;
}

export function formatValue(value: number): string {
  // Counts (customers, faults, invariants) print as counts, not as 2.00.
  if (Number.isInteger(value)) return value.toLocaleString('en-US');
  if (value >= 100) return Math.round(value).toLocaleString('en-US');
  if (value >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

export function printTable(figures: Figure[]): string {
  const rows = figures.map((figure) => [
    figure.name,
    `${formatValue(figure.value)} ${figure.unit}`,
    figure.target === undefined ? '' : `${figure.target} ${figure.met ? '(met)' : '(MISSED)'}`,
    figure.method,
  ]);
  const header = ['figure', 'value', 'target', 'method'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

/** Writes the run as JSON under bench/results/ (git-ignored) and returns the file's path. */
export function saveResults(figures: Figure[]): string {
  const dir = join(resolve(__dirname), 'results');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(path, `${JSON.stringify({ machine: machine(), at: new Date().toISOString(), figures }, null, 2)}\n`);
  return path;
}

/** The p-th percentile (0..100) of a list of numbers, by nearest rank. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}
