/**
 * `npm run chaos -- --seed N --customers N --minutes M [--cluster]`: one chaos run (chaos/play.ts), its invariant
 * table, and exit code 1 with the seed, the schedule and the first broken invariant when one broke.
 * docs/guarantees/chaos.md says what it plays and checks.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { Runtime, DefaultLogger } from '@temporalio/worker';
import { playChaos } from './play';
import { describeSchedule, drawSchedule } from './schedule';
import { formatTable, firstBroken } from './table';
import { useRunPayloadKeys } from './run-keys';

const whole = (value: string): number => {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new InvalidArgumentError('expected a whole number');
  return number;
};
const positive = (value: string): number => {
  const number = Number(value);
  if (!(number > 0)) throw new InvalidArgumentError('expected a number above 0');
  return number;
};

const program = new Command('chaos')
  .description('Plays a seeded schedule of workload and faults against the whole stack and checks the invariants')
  .option('--seed <n>', "the schedule's seed; the same seed plays the same schedule", whole, 1)
  .option('--customers <n>', 'customers signing up', whole, 5)
  .option('--minutes <m>', 'minutes of workload and faults (settling comes after)', positive, 2)
  .option(
    '--cluster',
    'on the cluster profile (the Temporal server on a private PostgreSQL) instead of a dev server on a database file; PostgreSQL is restarted too',
  )
  .parse();
const options = program.opts<{ seed: number; customers: number; minutes: number; cluster?: boolean }>();

// Encrypted like production, as the test suites run: one fresh payload key per run, inherited by
// every process the run starts; submitted documents go to a folder of the run's own.
useRunPayloadKeys('chaos-run');
process.env.RAMPFLOW_ATTACHMENTS_DIR ||= mkdtempSync(join(tmpdir(), 'rampflow-chaos-attachments-'));

// The run kills workers and Temporal on purpose: the SDK's warning per failed call is noise here.
Runtime.install({ logger: new DefaultLogger('ERROR') });
async function main(): Promise<number> {
  const run = {
    seed: options.seed,
    customers: options.customers,
    minutes: options.minutes,
    ...(options.cluster ? { cluster: true } : {}),
  };
  const print = (line: string) => process.stdout.write(`${line}\n`);
  print(describeSchedule(drawSchedule(run))[0]!);
  const result = await playChaos(run, print);
  print(formatTable(result.rows));
  const broken = firstBroken(result.rows);
  if (!broken) return 0;
  print(
    `\nFAILED with seed ${result.schedule.seed} (replay: npm run chaos -- --seed ${run.seed} --customers ${run.customers} --minutes ${run.minutes}${run.cluster ? ' --cluster' : ''})`,
  );
  print('schedule:');
  for (const line of describeSchedule(result.schedule)) print(line);
  print(`first broken invariant: ${broken.name}`);
  for (const line of broken.evidence) print(`  ${line}`);
  return 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `the chaos run could not run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(2);
  },
);
