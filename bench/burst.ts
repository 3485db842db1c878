/**
 * A burst of deposits for one customer (issue 41): N deposits paid at once into one journey's virtual
 * account (bench/burst/rampflow-burst.ts), and beside it the deposit floor under the same load
 * (bench/burst/floor-burst.ts, bench/floor/deposit-floor.ts), each on a fresh Temporal (the dev
 * server, or with `--cluster` the cluster profile on PostgreSQL). Prints the time from the first
 * deposit to the last completed and, per deposit, Temporal actions (every history, Temporal Cloud's
 * rules), workflow tasks and history events (the deposits' and the journey's), service calls and the
 * CPU of the server and the worker, each against the floor's. `BENCH_BURST_DEPOSITS` sets N (default
 * 1,000; 50 with --quick), `BENCH_BURST_LIMIT_MINUTES` the cut-off of each run (default 20).
 */
import type { BenchOptions } from './options';
import { percentile, type Figure } from './report';
import { runFloorBurst } from './burst/floor-burst';
import { BURST_EXTERNAL_ID, runRampflowBurst } from './burst/rampflow-burst';
import type { BurstResult } from './burst/burst-result';
import { actionsOf, addShape, emptyShape, type HistoryShape } from './support/history-shape';
import { ACTION_KINDS } from './support/billable-actions';
import { startBenchTemporal } from './support/temporal';

/** Issue 41's goals (item 3), met or not by today's orchestration. */
const GOALS = {
  spanSeconds: 100,
  spanAtDeposits: 1_000,
  actionsPerDeposit: 12,
  workflowTasksPerDeposit: 6,
  cpuOverFloor: 1.2,
};

function burstSize(options: BenchOptions): number {
  const asked = process.env.BENCH_BURST_DEPOSITS;
  if (!asked) return options.quick ? 50 : 1_000;
  const count = Number(asked);
  if (!Number.isInteger(count) || count < 1)
    throw new Error(`BENCH_BURST_DEPOSITS must be a whole number above 0 (got "${asked}")`);
  return count;
}

function limitMs(): number {
  const minutes = Number(process.env.BENCH_BURST_LIMIT_MINUTES ?? '20');
  if (!(minutes > 0))
    throw new Error(
      `BENCH_BURST_LIMIT_MINUTES must be a number of minutes above 0 (got "${process.env.BENCH_BURST_LIMIT_MINUTES}")`,
    );
  return minutes * 60_000;
}

export async function benchBurst(options: BenchOptions): Promise<Figure[]> {
  const count = burstSize(options);
  const limit = limitMs();
  const where = options.cluster ? 'cluster profile (Temporal on PostgreSQL)' : 'dev server';
  options.progress(`burst: rampflow, ${count} deposits, on a fresh ${where}`);
  const rampflowTemporal = await startBenchTemporal({ cluster: options.cluster });
  let rampflow: Awaited<ReturnType<typeof runRampflowBurst>>;
  try {
    rampflow = await runRampflowBurst(rampflowTemporal, count, options.cluster, limit, options.progress);
  } finally {
    await rampflowTemporal.stop();
  }
  options.progress(`burst: the deposit floor, on a fresh ${where}`);
  const floorTemporal = await startBenchTemporal({ cluster: options.cluster });
  let floor: BurstResult;
  try {
    floor = await runFloorBurst(floorTemporal, BURST_EXTERNAL_ID, rampflow, options.cluster, limit, options.progress);
  } finally {
    await floorTemporal.stop();
  }
  return burstFigures(rampflow.result, floor, options.cluster);
}

const round = (value: number) => Math.round(value * 100) / 100;
const seconds = (ms: number) => round(ms / 1000);
const both = (run: BurstResult): HistoryShape => addShape(addShape(emptyShape(), run.deposit), run.journey);
const everything = (run: BurstResult): HistoryShape => [...run.others.values()].reduce(addShape, both(run));

/** The rows, rampflow's beside the floor's and their ratio. Per deposit unless the name says otherwise. */
export function burstFigures(run: BurstResult, floor: BurstResult, cluster: boolean): Figure[] {
  const n = run.deposits;
  const tag = `burst${cluster ? ' (cluster)' : ''}, N = ${n.toLocaleString('en-US')}`;
  const per = (value: number) => value / n;
  const all = everything(run);
  const floorAll = everything(floor);
  const kinds = (shape: HistoryShape) =>
    ACTION_KINDS.filter((kind) => shape.actions[kind] !== 0)
      .map((kind) => `${kind} ${round(per(shape.actions[kind]))}`)
      .join(', ');
  const split = (deposit: number, journey: number) =>
    `deposit workflows ${round(per(deposit))}, journey ${round(per(journey))}`;
  const othersText = [...run.others]
    .map(([type, shape]) => `${type} ${shape.runs} runs, ${round(per(actionsOf(shape)))} actions`)
    .join('; ');
  const setup = `one journey ACTIVE (AUD onramp), ${n} deposits of 1.00 AUD by POST /deposit/mock 8 at a time; sandbox on autopilot (0.2 s a step, webhooks every 1 s), the receiver and one worker as child processes, on a fresh ${cluster ? 'cluster profile' : 'dev server'}`;
  const floorSetup = `deposit floor: the same ${n} deposit ids, each deposit's 4 webhooks sent by the driver as the sandbox delivered rampflow's (due at the same times after each payment, a delivery tick a second, one after another; signal-with-start, then 3 signals), 2 no-op activities (the reads of the deposit and its trade), one report to the journey by signal; its own worker process, plain payloads, a fresh ${cluster ? 'cluster profile' : 'dev server'}`;
  const serverCpu = (r: BurstResult) => r.cpuMs.server + (r.cpuMs.postgres ?? 0);
  const cpu = (r: BurstResult) => serverCpu(r) + r.cpuMs.worker;
  const calls = [...run.callsByPath.values()].reduce((sum, made) => sum + made, 0);
  const spanSeconds = run.spanMs / 1000;
  const ratio = (ours: number, theirs: number) => (theirs > 0 ? ours / theirs : Number.NaN);
  const cpuRatio = ratio(cpu(run), cpu(floor));
  const figures: Figure[] = [
    {
      name: `${tag}: Temporal actions per deposit`,
      value: per(actionsOf(all)),
      unit: 'actions',
      method: `${setup}; every history after the journey reached ACTIVE, Temporal Cloud's rules: ${split(actionsOf(run.deposit), actionsOf(run.journey))}${othersText ? `, others: ${othersText}` : ''}; by kind: ${kinds(all)}`,
      target: `<= ${GOALS.actionsPerDeposit}`,
      met: per(actionsOf(all)) <= GOALS.actionsPerDeposit,
    },
    {
      name: `${tag}: deposit floor's actions per deposit`,
      value: per(actionsOf(floorAll)),
      unit: 'actions',
      method: `${floorSetup}; ${split(actionsOf(floor.deposit), actionsOf(floor.journey))}; by kind: ${kinds(floorAll)}`,
    },
    {
      name: `${tag}: workflow tasks per deposit`,
      value: per(both(run).workflowTasks),
      unit: 'tasks',
      method: `WorkflowTaskStarted events: ${split(run.deposit.workflowTasks, run.journey.workflowTasks)} (the journey's every run since ACTIVE: ${run.journey.runs} continue-as-new); floor: ${split(floor.deposit.workflowTasks, floor.journey.workflowTasks)}`,
      target: `<= ${GOALS.workflowTasksPerDeposit}`,
      met: per(both(run).workflowTasks) <= GOALS.workflowTasksPerDeposit,
    },
    {
      name: `${tag}: history events per deposit`,
      value: per(both(run).events),
      unit: 'events',
      method: `${split(run.deposit.events, run.journey.events)}; floor: ${split(floor.deposit.events, floor.journey.events)} (${round(per(both(floor).events))} in all)`,
    },
    {
      name: `${tag}: service calls per deposit`,
      value: per(calls),
      unit: 'calls',
      method: `sandbox request log during the burst, the deposits themselves and simulation endpoints left out: ${[
        ...run.callsByPath,
      ]
        .sort(([, a], [, b]) => b - a)
        .map(([path, made]) => `${path} ${round(per(made))}`)
        .join(', ')}`,
    },
    {
      name: `${tag}: first deposit paid to the last completed`,
      value: spanSeconds,
      unit: 's',
      method: `the driver's clock at the first POST /deposit/mock to the last deposit workflow's close time (visibility); a deposit workflow's start to close p50 ${seconds(percentile(run.depositRunMs, 50))} s, max ${seconds(Math.max(...run.depositRunMs))} s; the deposit floor: ${seconds(floor.spanMs)} s (${round(ratio(run.spanMs, floor.spanMs))}x), its deposits p50 ${seconds(percentile(floor.depositRunMs, 50))} s, max ${seconds(Math.max(...floor.depositRunMs))} s`,
      ...(n === GOALS.spanAtDeposits && !cluster
        ? { target: `<= ${GOALS.spanSeconds}`, met: spanSeconds <= GOALS.spanSeconds }
        : {}),
    },
    {
      name: `${tag}: webhook deliveries' time in all, over the span`,
      value: ratio(run.deliveries?.totalMs ?? 0, run.spanMs),
      unit: 'x',
      method: `the sandbox's log: ${round(per(run.deliveries?.attempts ?? 0))} delivery attempts a deposit, ${round((run.deliveries?.totalMs ?? 0) / Math.max(1, run.deliveries?.attempts ?? 0))} ms each on average (the receiver's answer), ${seconds(run.deliveries?.totalMs ?? 0)} s in all; one customer's deliveries go out one after another, so near 1 the delivery lane is what the burst waits for`,
    },
    {
      name: `${tag}: CPU of the Temporal server${cluster ? ' and PostgreSQL' : ''}`,
      value: serverCpu(run) / 1000,
      unit: 'CPU-s',
      method: `/proc/<pid>/stat over the burst (${round(serverCpu(run) / n)} ms a deposit${cluster ? `; PostgreSQL ${round((run.cpuMs.postgres ?? 0) / 1000)} s of it` : ''}); the deposit floor's: ${round(serverCpu(floor) / 1000)} s (${round(ratio(serverCpu(run), serverCpu(floor)))}x)`,
    },
    {
      name: `${tag}: CPU of the worker`,
      value: run.cpuMs.worker / 1000,
      unit: 'CPU-s',
      method: `/proc/<pid>/stat over the burst (${round(run.cpuMs.worker / n)} ms a deposit); the deposit floor's worker: ${round(floor.cpuMs.worker / 1000)} s (${round(ratio(run.cpuMs.worker, floor.cpuMs.worker))}x); beside them the receiver ${round((run.cpuMs.receiver ?? 0) / 1000)} s and this process (sandbox and driver) ${round((run.cpuMs.driver ?? 0) / 1000)} s`,
    },
    {
      name: `${tag}: CPU per deposit, server and worker, over the deposit floor's`,
      value: cpuRatio,
      unit: 'x',
      method: `(server${cluster ? ' + PostgreSQL' : ''} + worker) CPU: ${round(cpu(run) / n)} ms a deposit against the floor's ${round(cpu(floor) / n)} ms`,
      target: `<= ${GOALS.cpuOverFloor}x`,
      met: cpuRatio <= GOALS.cpuOverFloor,
    },
    {
      name: `${tag}: actions, workflow tasks and history events over the deposit floor's`,
      value: ratio(actionsOf(all), actionsOf(floorAll)),
      unit: 'x',
      method: `actions ${round(ratio(actionsOf(all), actionsOf(floorAll)))}x, workflow tasks ${round(ratio(both(run).workflowTasks, both(floor).workflowTasks))}x, history events ${round(ratio(both(run).events, both(floor).events))}x`,
    },
  ];
  return figures;
}
