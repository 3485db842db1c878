/**
 * `npm run bench -- chaos`: the long chaos run (chaos/, docs/guarantees/chaos.md) as a bench row, on
 * the cluster profile (the Temporal server on a private PostgreSQL, killed and restarted, and
 * PostgreSQL stopped and started, among the faults). 1,000 customers and 30 minutes of play by
 * default; BENCH_CHAOS_CUSTOMERS, BENCH_CHAOS_MINUTES and BENCH_CHAOS_SEED (default 1) size it, and
 * `--quick` plays 20 customers for 3 minutes. After the play everything has as long as the play, and
 * at least the 5 minutes `npm run chaos` gives, to come to rest (BENCH_CHAOS_SETTLE_MINUTES). It is not part of the default table (`npm run bench`
 * with no names): it runs only when named.
 *
 * Printed: the customers, the partner events the verifying endpoint accepted, the faults struck per
 * kind, how many invariants held (the table itself goes to the progress lines), and the slowest
 * customer to come to rest after the last fault ended (its plan done and its journey showing it,
 * seen by the run's one-second rounds).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { playChaos, SETTLE_BOUND_SECONDS } from '../chaos/play';
import { describeSchedule } from '../chaos/schedule';
import { formatTable } from '../chaos/table';
import type { BenchOptions } from './options';
import type { Figure } from './report';
import { BENCH_PAYLOAD_KEYS_VARIABLE } from './support/temporal';
import { useRunPayloadKeys } from '../chaos/run-keys';

const FULL = { customers: 1_000, minutes: 30 };
const QUICK = { customers: 20, minutes: 3 };

/** A number from the environment, or `fallback`. */
function fromEnv(variable: string, fallback: number, kind: 'seed' | 'count' | 'minutes'): number {
  const asked = Number(process.env[variable] ?? fallback);
  const valid = kind === 'minutes' ? asked > 0 : Number.isInteger(asked) && asked >= (kind === 'seed' ? 0 : 1);
  if (!valid)
    throw new Error(
      `${variable} must be ${kind === 'minutes' ? 'a number above 0' : kind === 'seed' ? 'a whole number, 0 or more' : 'a whole number above 0'}`,
    );
  return asked;
}

export async function benchChaos(options: BenchOptions): Promise<Figure[]> {
  const size = options.quick ? QUICK : FULL;
  const run = {
    seed: fromEnv('BENCH_CHAOS_SEED', 1, 'seed'),
    customers: fromEnv('BENCH_CHAOS_CUSTOMERS', size.customers, 'count'),
    minutes: fromEnv('BENCH_CHAOS_MINUTES', size.minutes, 'minutes'),
    cluster: true,
  };
  const settleMinutes = fromEnv(
    'BENCH_CHAOS_SETTLE_MINUTES',
    Math.max(SETTLE_BOUND_SECONDS / 60, run.minutes),
    'minutes',
  );
  // Every process the run starts inherits these, as under `npm run chaos`.
  useRunPayloadKeys('bench', BENCH_PAYLOAD_KEYS_VARIABLE);
  process.env.RAMPFLOW_ATTACHMENTS_DIR ||= mkdtempSync(join(tmpdir(), 'rampflow-bench-chaos-attachments-'));
  try {
    // The run kills workers and Temporal on purpose: the SDK's warning per failed call is noise here.
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Already installed by an earlier benchmark in this process.
  }

  const started = Date.now();
  const result = await playChaos(run, options.progress, undefined, Math.round(settleMinutes * 60));
  const wallMinutes = (Date.now() - started) / 60_000;
  for (const line of formatTable(result.rows).split('\n')) options.progress(line);
  if (result.rows.some((row) => row.evidence.length > 0))
    for (const line of describeSchedule(result.schedule)) options.progress(line);

  const { figures } = result;
  const replay = `npm run chaos -- --cluster --seed ${run.seed} --customers ${run.customers} --minutes ${run.minutes}`;
  const method = `seed ${run.seed}, ${run.customers} customers, ${run.minutes} min of play and up to ${settleMinutes} to settle on the cluster profile (Temporal server 1.29.1 on PostgreSQL, 4 history shards), ${wallMinutes.toFixed(1)} min in all; replay: ${replay}`;
  const held = result.rows.filter((row) => row.evidence.length === 0).length;
  const settle = [...figures.settleAfterLastFaultSeconds];
  const atRest = settle.filter((entry): entry is [string, number] => entry[1] !== undefined);
  const slowest = atRest.reduce<[string, number] | undefined>(
    (worst, entry) => (worst === undefined || entry[1] > worst[1] ? entry : worst),
    undefined,
  );
  const neverAtRest = settle.length - atRest.length;
  return [
    { name: 'chaos: customers', value: run.customers, unit: 'customers', method },
    {
      name: 'chaos: partner events accepted',
      value: figures.partnerEvents,
      unit: 'events',
      method: `verified by the partner endpoint (standardwebhooks), redeliveries included; the service answered ${figures.serviceRequests.toLocaleString('en-US')} of rampflow's calls; ${figures.forgedDeliveries.toLocaleString('en-US')} forged deliveries sent; ${method}`,
    },
    ...Object.entries(figures.faultsStruck)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([kind, count]): Figure => ({
        name: `chaos: faults injected: ${kind}`,
        value: count,
        unit: 'faults',
        method: `struck by the schedule (a service fault by its answer); ${method}`,
      })),
    {
      name: 'chaos: invariants held',
      value: held,
      unit: `of ${result.rows.length}`,
      target: `= ${result.rows.length}`,
      met: held === result.rows.length,
      method: `the run's invariant table (printed above the bench table)${result.settledWithinBound ? '' : ', its first row: not everything came to rest within the settle bound'}; ${method}`,
    },
    {
      name: 'chaos: the most resident memory of a worker',
      value: Math.round(Math.max(0, ...result.record.memory.peaks.map((peak) => peak.peakMiB))),
      unit: 'MiB',
      target: `<= ${result.record.memory.budgetMiB}`,
      met:
        result.record.memory.peaks.length > 0 &&
        result.record.memory.peaks.every((peak) => peak.peakMiB <= result.record.memory.budgetMiB),
      method: `the highest of ${result.record.memory.peaks.length} workers' peaks (the worker proper, read from /proc every second), against WORKER_MEMORY_MB; ${method}`,
    },
    {
      name: 'chaos: slowest journey to settle after the last fault',
      value: slowest?.[1] ?? Number.NaN,
      unit: 's',
      method: `${slowest ? slowest[0] : 'no customer'}: from the last fault's end to the run first seeing the customer at rest for good (its plan done, its journey showing it; 1 s rounds)${neverAtRest > 0 ? `; ${neverAtRest} customer(s) never came to rest` : ''}; ${method}`,
    },
  ];
}
