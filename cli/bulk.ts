/**
 * What `journey retry|cancel --all`, `deposit retry|cancel --all`, `payout retry --all` and `versions --hand-over` share: their flags, a progress
 * line on stderr while they run (stdout stays the result, or JSON with --json), the summary, and the
 * exit code (1 when any workflow failed; a refusal means the workflow moved on, which is not a failure).
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_BULK_CONCURRENCY, type BulkOptions, type BulkProgress, type BulkReport } from '../client';
import { printJson } from './client-session';

export interface BulkFlags {
  all?: boolean;
  stage?: string;
  errorType?: string;
  dryRun?: boolean;
  concurrency?: number;
  json?: boolean;
}

export interface BulkCommand {
  verb: 'retry' | 'cancel' | 'hand over';
  /** `journey`, `deposit` or `payout`. */
  noun: string;
  /** Extra words for the summary's description of the set, e.g. `of customer user-42`. */
  scope?: string;
  /** The summary's description of the set, instead of the stage's (a hand-over's set is every stage's). */
  set?: string;
}

const BULK_ONLY: [keyof BulkFlags, string][] = [
  ['stage', '--stage'],
  ['errorType', '--error-type'],
  ['dryRun', '--dry-run'],
  ['concurrency', '--concurrency'],
  ['json', '--json'],
];

const PROGRESS_EVERY_MS = 1000;
const PROGRESS_EVERY_COUNT = 50;

/** `--concurrency <n>`: a whole number from 1 to 100 (the client's bound). */
export function concurrency(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 100)
    throw new InvalidArgumentError('must be a whole number from 1 to 100');
  return parsed;
}

/** The flags that turn a retry or cancel of one workflow into one of every workflow at a stage. */
export function addBulkOptions(command: Command, stages: readonly string[], noun: string): Command {
  return command
    .option('--all', `every ${noun} at --stage (on TEMPORAL_TASK_QUEUE) instead of one`)
    .addOption(
      new Option('--stage <stage>', 'with --all: the stage to act on (default NEEDS_ATTENTION)').choices(stages),
    )
    .option(
      '--error-type <type>',
      "with --all: only those whose attention's error type is this (Deadline, InvalidParameters, Refused, Rejected, ...)",
    )
    .option('--dry-run', 'with --all: print how many and which would be acted on, change nothing')
    .option(
      '--concurrency <n>',
      `with --all: workflows updated at once (default ${DEFAULT_BULK_CONCURRENCY})`,
      concurrency,
    )
    .option('--json', 'with --all: print the report as JSON');
}

export const BULK_EXAMPLES = (command: string): string =>
  `\nExamples:\n  rampflow ${command} --all --dry-run\n  rampflow ${command} --all --error-type Deadline --dry-run\n`;

/** Whether the command acts on one workflow or on --all; refuses a mix of the two. */
export function isBulk(id: string | undefined, flags: BulkFlags, idName: string): boolean {
  if (flags.all) {
    if (id !== undefined) throw new Error(`give either <${idName}> or --all, not both`);
    return true;
  }
  if (id === undefined) throw new Error(`missing <${idName}> (or --all for every one at a stage)`);
  const stray = BULK_ONLY.find(([flag]) => flags[flag] !== undefined);
  if (stray) throw new Error(`${stray[1]} needs --all`);
  return false;
}

function bulkOptions(flags: BulkFlags): BulkOptions {
  return {
    ...(flags.dryRun ? { dryRun: true } : {}),
    ...(flags.concurrency ? { concurrency: flags.concurrency } : {}),
  };
}

/**
 * A progress line at most every second, and at least every 50 workflows, so a long run shows it is
 * alive without flooding a terminal; the last workflow is left to the summary.
 */
export function progressReporter(
  command: BulkCommand,
  dryRun: boolean,
  write: (line: string) => void,
  now: () => number = Date.now,
): (progress: BulkProgress) => void {
  let lastAt = now();
  let lastCount = 0;
  return (progress) => {
    const { settled, listed } = progress;
    if (settled === listed || (now() - lastAt < PROGRESS_EVERY_MS && settled - lastCount < PROGRESS_EVERY_COUNT))
      return;
    lastAt = now();
    lastCount = settled;
    write(
      `${command.noun} ${command.verb}${dryRun ? ' (dry run)' : ''}: ${settled} of ${listed} (${counts(progress)})\n`,
    );
  };
}

/** Runs the bulk action with a progress line on stderr, then prints the report and sets the exit code. */
export async function runBulkCommand(
  command: BulkCommand,
  flags: BulkFlags,
  run: (options: BulkOptions) => Promise<BulkReport>,
): Promise<void> {
  const onProgress = progressReporter(command, flags.dryRun ?? false, (line) => process.stderr.write(line));
  const report = await run({ ...bulkOptions(flags), onProgress });
  if (flags.json) printJson(report);
  else process.stdout.write(formatBulkReport(command, flags, report));
  if (report.failed > 0) process.exitCode = 1;
}

const PAST: Record<BulkCommand['verb'], string> = { retry: 'retried', cancel: 'cancelled', 'hand over': 'handed over' };

function counts(progress: BulkProgress): string {
  return `done ${progress.done}, refused ${progress.refused}, failed ${progress.failed}, skipped ${progress.skipped}`;
}

const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;

export function formatBulkReport(command: BulkCommand, flags: BulkFlags, report: BulkReport): string {
  const set = [
    command.set ?? `at ${flags.stage ?? 'NEEDS_ATTENTION'}`,
    command.scope,
    flags.errorType && `with error type ${flags.errorType}`,
  ]
    .filter(Boolean)
    .join(' ');
  if (report.dryRun) {
    const lines = [
      `dry run: would ${command.verb} ${report.matched} of ${plural(report.listed, command.noun)} ${set}; nothing was changed`,
    ];
    for (const target of report.wouldAct) lines.push(`  ${target.id}${target.reason ? `  ${target.reason}` : ''}`);
    if (report.failed > 0)
      lines.push(
        `  ${report.failed} could not be read:`,
        ...report.failures.map(({ id, error }) => `  failed ${id}: ${error}`),
      );
    return `${lines.join('\n')}\n`;
  }
  const lines = [
    `${PAST[command.verb]} ${report.done} of ${plural(report.listed, command.noun)} ${set}; refused ${report.refused} (moved on meanwhile), failed ${report.failed}, skipped ${report.skipped}`,
    ...report.refusals.map(({ id, reason }) => `  refused ${id}: ${reason}`),
    ...report.failures.map(({ id, error }) => `  failed ${id}: ${error}`),
  ];
  return `${lines.join('\n')}\n`;
}
