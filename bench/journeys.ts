/**
 * Journeys against the floor: for each N, a fresh dev server runs N trivial floor journeys (Temporal's
 * own cost of a journey's orchestration as issue 25 drew it, bench/floor/), N full floor journeys (the
 * orchestration a journey has today, bench/floor/full-floor.ts) and then N rampflow journeys (worker
 * and receiver as child processes, sandbox on autopilot with every step immediate, webhooks through
 * the receiver).
 * Then the largest N that finishes within two minutes, found by stepping from the measured throughput.
 * With `--cluster`, each N runs on a fresh cluster-profile server on PostgreSQL instead (no search for
 * the largest N there: the point is the ratio to the floor where 1,000 journeys can finish).
 */
import { createRampflowClient } from '../client';
import { runFloor, startFloorWorker, type FloorRunResult } from './floor/run-floor';
import { runJourneys, type JourneyRunResult } from './journeys/run-journeys';
import type { BenchOptions } from './options';
import { percentile, type Figure } from './report';
import type { BenchChild } from './support/child-process';
import { machineBusyCpuMs, temporalCpuMs } from './support/process-cpu';
import { startRampflowStack } from './support/rampflow-stack';
import { BENCH_PAYLOAD_KEYS, startBenchTemporal } from './support/temporal';

/** The sandbox's delivery scheduler runs every second: each webhook waits up to 1 s after its event. */
const DELIVERY_TICK_SECONDS = 1;
/**
 * Webhooks drive the journeys; the polls are the fallback (the AUD whitelist has no event, but with
 * the sandbox's zero delay it is active when the journey first looks). Deposits are found by events,
 * so the ACTIVE journeys' own deposit listing is set to production's hour and never runs.
 */
const TIMINGS = { pollIntervalSeconds: 10 };
/**
 * The rampflow worker gets the memory Temporal's floor worker takes by default (the SDK sizes its
 * cache from the heap, about 4 GiB here: some 2,300 workflows), so both hold every journey of a run
 * in their cache and the ratio compares their work, not their budgets. On the default 512 MiB budget
 * (94 cached) rampflow's worker replays journeys evicted between their tasks, which is what a budget
 * buys, and sizing says how to choose it (docs/deploying/sizing.md).
 */
const WORKER_ENV = { WORKER_MEMORY_MB: '4096' };
const TWO_MINUTES_MS = 120_000;
/** Each run (floor or rampflow) is cut off after this long and reported unfinished. */
const RUN_LIMIT_MS = 150_000;
/** On the cluster profile runs may take longer: what is measured there is whether and how fast N finishes. */
const CLUSTER_RUN_LIMIT_MS = 15 * 60_000;
/** The search for the largest N only starts another run while the whole benchmark stays within this. */
const BENCHMARK_BUDGET_MS = 8 * 60_000;

interface SizeResult {
  journeys: JourneyRunResult;
  floor?: FloorRunResult;
  /** The floor with today's orchestration (bench/floor/full-floor.ts). */
  fullFloor?: FloorRunResult;
  workerPeakMiB: number;
  workerEndMiB: number;
  receiverPeakMiB: number;
  /** The machine's busy CPU time during each run (bench/support/process-cpu.ts), ms. */
  cpuMs: { floor?: number; fullFloor?: number; rampflow: number };
  /** The same runs' CPU by process, ms (the full floor's and rampflow's). */
  cpuByProcess: { fullFloor?: CpuByProcess; rampflow: CpuByProcess };
}

/**
 * One run's CPU by process, ms: the Temporal server (and PostgreSQL on the cluster profile), the
 * worker, the receiver (rampflow's run only), and this process, which drives the run and, in
 * rampflow's, runs the sandbox: the service's side, which production pays elsewhere.
 */
interface CpuByProcess {
  temporal: number;
  worker: number;
  receiver: number;
  benchmark: number;
}

/** What the run's processes have spent so far; `since` gives the run's share. */
function cpuByProcessNow(cluster: boolean, worker: BenchChild, receiver?: BenchChild): CpuByProcess {
  const { server, postgres } = temporalCpuMs(cluster);
  const own = process.cpuUsage();
  return {
    temporal: server + (postgres ?? 0),
    worker: worker.cpuMs(),
    receiver: receiver?.cpuMs() ?? 0,
    benchmark: (own.user + own.system) / 1000,
  };
}

const cpuSince = (before: CpuByProcess, after: CpuByProcess): CpuByProcess => ({
  temporal: after.temporal - before.temporal,
  worker: after.worker - before.worker,
  receiver: after.receiver - before.receiver,
  benchmark: after.benchmark - before.benchmark,
});

/** rampflow's own side of a run: everything but this process (the driver, and the sandbox standing in for the service). */
const ownSideMs = (cpu: CpuByProcess) => cpu.temporal + cpu.worker + cpu.receiver;

async function measureSize(
  count: number,
  withFloor: boolean,
  timeoutMs: number,
  options: BenchOptions,
): Promise<SizeResult> {
  const name = `journeys-${count}`;
  const temporal = await startBenchTemporal({ cluster: options.cluster });
  try {
    let floor: FloorRunResult | undefined;
    let fullFloor: FloorRunResult | undefined;
    let floorCpuMs: number | undefined;
    let fullFloorCpuMs: number | undefined;
    let fullFloorByProcess: CpuByProcess | undefined;
    if (withFloor) {
      const floorWorker = await startFloorWorker(temporal, name);
      try {
        options.progress(`  floor: ${count} trivial journeys`);
        let cpuBefore = machineBusyCpuMs();
        floor = await runFloor(temporal.client, floorWorker, count, timeoutMs);
        floorCpuMs = machineBusyCpuMs() - cpuBefore;
        options.progress(`  full floor: ${count} trivial journeys with today's orchestration`);
        cpuBefore = machineBusyCpuMs();
        const byProcessBefore = cpuByProcessNow(options.cluster, floorWorker.worker);
        fullFloor = await runFloor(temporal.client, floorWorker, count, timeoutMs, 'fullFloorJourney');
        fullFloorCpuMs = machineBusyCpuMs() - cpuBefore;
        fullFloorByProcess = cpuSince(byProcessBefore, cpuByProcessNow(options.cluster, floorWorker.worker));
      } finally {
        await floorWorker.worker.stop();
      }
    }
    const stack = await startRampflowStack(temporal, {
      name,
      deliveryTickSeconds: DELIVERY_TICK_SECONDS,
      workerEnv: WORKER_ENV,
    });
    try {
      const rampflow = await createRampflowClient({
        connection: temporal.connection,
        namespace: temporal.server.namespace,
        taskQueue: stack.taskQueue,
        payloadKeys: BENCH_PAYLOAD_KEYS,
      });
      options.progress(`  rampflow: ${count} journeys`);
      const cpuBefore = machineBusyCpuMs();
      const byProcessBefore = cpuByProcessNow(options.cluster, stack.worker!, stack.receiver);
      const journeys = await runJourneys(stack, rampflow, {
        count,
        prefix: `${name}-`,
        timings: TIMINGS,
        timeoutMs,
        progress: (line) => options.progress(`    ${line}`),
      });
      const rampflowCpuMs = machineBusyCpuMs() - cpuBefore;
      const rampflowByProcess = cpuSince(
        byProcessBefore,
        cpuByProcessNow(options.cluster, stack.worker!, stack.receiver),
      );
      const worker = stack.worker!.memory();
      return {
        journeys,
        ...(floor ? { floor } : {}),
        ...(fullFloor ? { fullFloor } : {}),
        workerPeakMiB: worker.peakMiB,
        workerEndMiB: worker.rssMiB,
        receiverPeakMiB: stack.receiver.memory().peakMiB,
        cpuMs: {
          rampflow: rampflowCpuMs,
          ...(floorCpuMs !== undefined ? { floor: floorCpuMs } : {}),
          ...(fullFloorCpuMs !== undefined ? { fullFloor: fullFloorCpuMs } : {}),
        },
        cpuByProcess: {
          rampflow: rampflowByProcess,
          ...(fullFloorByProcess ? { fullFloor: fullFloorByProcess } : {}),
        },
      };
    } finally {
      await stack.stop();
    }
  } finally {
    await temporal.stop();
  }
}

const perSecond = (count: number, ms: number) => count / (ms / 1000);

const CPU_METHOD =
  "the machine's busy CPU time (/proc/stat: every process, so the Temporal server, PostgreSQL on the cluster profile, the worker, the receiver, the sandbox and the driver) from the run's first start to its end, divided by the journeys asked for; the machine runs nothing else meanwhile";

/** What the runs ran on, for the figures' methods. */
const onWhat = (options: BenchOptions) =>
  options.cluster
    ? 'the cluster profile (Temporal server 1.29.1 on PostgreSQL 15, 4 history shards, every role in one process)'
    : 'the embedded dev server';

/**
 * The issue's ratio targets: at most 1.2× the floor at N = 1,000 on the cluster profile, and 1.5× at
 * N = 300 on the dev server (where a journey's fixed waits weigh more in a shorter run).
 */
function ratioTarget(count: number, options: BenchOptions): number | undefined {
  if (options.cluster) return count === 1000 ? 1.2 : undefined;
  return count === 300 ? 1.5 : undefined;
}

function sizeFigures(result: SizeResult, options: BenchOptions): Figure[] {
  const ratioLimit = ratioTarget(result.journeys.count, options);
  const { journeys, floor } = result;
  const n = options.cluster ? `${journeys.count} (cluster)` : journeys.count;
  const unfinished = journeys.finished ? '' : ` (UNFINISHED: ${journeys.journeyMs.length}/${n} within the time limit)`;
  const method = `on ${onWhat(options)}: N=${journeys.count} journeys started at once (32 start calls in flight), sandbox autopilot with zero delays, webhook tick ${DELIVERY_TICK_SECONDS} s, poll interval ${TIMINGS.pollIntervalSeconds} s; start to both deposits COMPLETED, from visibility${unfinished}`;
  const figures: Figure[] = [
    {
      name: `journeys, N=${n}: journeys per second`,
      value: perSecond(journeys.journeyMs.length, journeys.makespanMs),
      unit: '/s',
      method: `${method}; completed journeys / (first start to last deposit closed)`,
    },
    {
      name: `journeys, N=${n}: time per journey p50`,
      value: percentile(journeys.journeyMs, 50) / 1000,
      unit: 's',
      method,
    },
    {
      name: `journeys, N=${n}: time per journey p99`,
      value: percentile(journeys.journeyMs, 99) / 1000,
      unit: 's',
      method,
    },
    {
      name: `journeys, N=${n}: p50 signup / deposit webhook / deposit run`,
      value: percentile(journeys.phasesMs.signup, 50) / 1000,
      unit: 's',
      method: `where a journey's time goes (p50 of each, s): start to the driver having sent both deposits (the journey's work, its webhooks' ticks and polls, the driver's half-second count and its query) ${(percentile(journeys.phasesMs.signup, 50) / 1000).toFixed(1)}; deposits sent to the later deposit workflow's start (the sandbox's delivery tick, the receiver's signal-with-start) ${(percentile(journeys.phasesMs.depositEvent, 50) / 1000).toFixed(1)}; that start to its close ${(percentile(journeys.phasesMs.depositRun, 50) / 1000).toFixed(1)}`,
    },
    {
      name: `journeys, N=${n}: service API calls per journey`,
      value: journeys.apiCalls / journeys.count,
      unit: 'calls',
      method: 'sandbox request log during the run (simulation endpoints left out)',
    },
    {
      name: `journeys, N=${n}: CPU per journey`,
      value: result.cpuMs.rampflow / journeys.count,
      unit: 'ms',
      method: CPU_METHOD,
    },
    {
      name: `journeys, N=${n}: worker peak memory`,
      value: result.workerPeakMiB,
      unit: 'MiB',
      // No target here: this worker is given 4 GiB to cache every journey (WORKER_ENV); the memory
      // targets are the memory benchmark's (per cached journey, and the peak on the default budget).
      method: `rampflow worker child process, VmHWM from /proc (start-up workflow bundling included; WORKER_MEMORY_MB=${WORKER_ENV.WORKER_MEMORY_MB}, every journey cached); ${Math.round(result.workerEndMiB)} MiB resident at the end with ${journeys.count} journeys ACTIVE`,
    },
    {
      name: `journeys, N=${n}: receiver peak memory`,
      value: result.receiverPeakMiB,
      unit: 'MiB',
      method: 'rampflow webhooks serve child process, VmHWM from /proc',
    },
  ];
  if (floor) {
    const floorMethod = `N=${journeys.count} floor journeys (3 workflows, 8 no-op activities, 15 signals each) on the same Temporal (${onWhat(options)}), own worker process; start to close, from visibility${floor.finished ? '' : ` (UNFINISHED: ${floor.journeyMs.length}/${n} within the time limit)`}`;
    // Only two finished runs compare; an unfinished one has no span to divide.
    const ratio = journeys.finished && floor.finished ? journeys.makespanMs / floor.makespanMs : Number.NaN;
    figures.push(
      {
        name: `floor, N=${n}: journeys per second`,
        value: perSecond(floor.journeyMs.length, floor.makespanMs),
        unit: '/s',
        method: floorMethod,
      },
      {
        name: `floor, N=${n}: time per journey p50`,
        value: percentile(floor.journeyMs, 50) / 1000,
        unit: 's',
        method: floorMethod,
      },
      {
        name: `floor, N=${n}: time per journey p99`,
        value: percentile(floor.journeyMs, 99) / 1000,
        unit: 's',
        method: floorMethod,
      },
      {
        name: `floor, N=${n}: worker peak memory`,
        value: floor.workerPeakMiB,
        unit: 'MiB',
        method: 'floor worker child process, VmHWM from /proc',
      },
      {
        name: `floor, N=${n}: CPU per journey`,
        value: result.cpuMs.floor! / floor.count,
        unit: 'ms',
        method: CPU_METHOD,
      },
      {
        name: `rampflow / floor, N=${n}: time ratio`,
        value: ratio,
        unit: 'x',
        method: `rampflow first start to last completion, divided by the floor's${Number.isNaN(ratio) ? ' (not computed: a run did not finish within its limit)' : ''}`,
        ...(ratioLimit !== undefined
          ? { target: `<= ${ratioLimit}`, met: !Number.isNaN(ratio) && ratio <= ratioLimit }
          : {}),
      },
      {
        name: `rampflow / floor, N=${n}: CPU ratio`,
        value: result.cpuMs.rampflow / journeys.count / (result.cpuMs.floor! / floor.count),
        unit: 'x',
        method:
          'CPU per journey of each run, divided: what the time ratio is where both runs keep the cores busy, and steadier than it from run to run',
      },
    );
  }
  const { fullFloor } = result;
  if (fullFloor) {
    const fullMethod = `N=${journeys.count} full floor journeys (today's orchestration: 3 workflows, 22 no-op activities (4 of them reports by update, 6 partner-event recordings), 2 no-op local activities, 16 search-attribute upserts each; bench/floor/full-floor.ts) on the same Temporal and worker as the floor${fullFloor.finished ? '' : ` (UNFINISHED: ${fullFloor.journeyMs.length}/${n} within the time limit)`}`;
    const ratio = journeys.finished && fullFloor.finished ? journeys.makespanMs / fullFloor.makespanMs : Number.NaN;
    figures.push(
      {
        name: `full floor, N=${n}: journeys per second`,
        value: perSecond(fullFloor.journeyMs.length, fullFloor.makespanMs),
        unit: '/s',
        method: fullMethod,
      },
      {
        name: `full floor, N=${n}: time per journey p50`,
        value: percentile(fullFloor.journeyMs, 50) / 1000,
        unit: 's',
        method: fullMethod,
      },
      {
        name: `full floor, N=${n}: CPU per journey`,
        value: result.cpuMs.fullFloor! / fullFloor.count,
        unit: 'ms',
        method: CPU_METHOD,
      },
      {
        name: `rampflow / full floor, N=${n}: time ratio`,
        value: ratio,
        unit: 'x',
        method: `rampflow's own work over Temporal's for the same orchestration: first start to last completion, divided by the full floor's${Number.isNaN(ratio) ? ' (not computed: a run did not finish within its limit)' : ''}`,
      },
      {
        name: `rampflow / full floor, N=${n}: CPU ratio`,
        value: result.cpuMs.rampflow / journeys.count / (result.cpuMs.fullFloor! / fullFloor.count),
        unit: 'x',
        method: 'CPU per journey of each run, divided',
      },
    );
    const floorSide = result.cpuByProcess.fullFloor;
    if (floorSide) {
      const rampflowSide = result.cpuByProcess.rampflow;
      figures.push({
        name: `rampflow / full floor, N=${n}: CPU ratio, the service's side left out`,
        value: ownSideMs(rampflowSide) / journeys.count / (ownSideMs(floorSide) / fullFloor.count),
        unit: 'x',
        method: `CPU per journey of the Temporal server${options.cluster ? ' and PostgreSQL' : ''}, the worker and the receiver, from /proc, divided: the benchmark's own process is left out, since in rampflow's run it also runs the sandbox, the service's side, which the full floor has none of. Per journey, rampflow: ${byProcessText(rampflowSide, journeys.count)}; full floor: ${byProcessText(floorSide, fullFloor.count)}`,
      });
    }
  }
  return figures;
}

const byProcessText = (cpu: CpuByProcess, count: number) => {
  const ms = (value: number) => `${Math.round(value / count)} ms`;
  const receiver = cpu.receiver > 0 ? `, receiver ${ms(cpu.receiver)}` : '';
  return `Temporal ${ms(cpu.temporal)}, worker ${ms(cpu.worker)}${receiver}, benchmark process ${ms(cpu.benchmark)}`;
};

/**
 * The largest N that finishes within two minutes: each step sizes N from the last run's throughput
 * (aiming at 90% of the window, since start-up and the last journeys' latency also count), at most
 * `steps` runs, each cut off at two minutes.
 */
async function largestWithinTwoMinutes(
  measured: JourneyRunResult[],
  steps: number,
  budgetEnd: number,
  options: BenchOptions,
): Promise<{ count: number; tried: string[] }> {
  const inTwoMinutes = (run: JourneyRunResult) => run.finished && run.makespanMs <= TWO_MINUTES_MS;
  let best = Math.max(0, ...measured.filter(inTwoMinutes).map((run) => run.count));
  const tried = measured.map(
    (run) => `${run.count}: ${run.finished ? `${Math.round(run.makespanMs / 1000)} s` : 'unfinished'}`,
  );
  let last = measured[measured.length - 1]!;
  for (let step = 0; step < steps; step++) {
    const throughput = perSecond(last.journeyMs.length, last.makespanMs);
    if (!(throughput > 0)) {
      tried.push('no completed journeys to size the next step from');
      break;
    }
    const next = Math.max(100, Math.round((throughput * TWO_MINUTES_MS * 0.9) / 1000 / 100) * 100);
    if (tried.some((line) => line.startsWith(`${next}:`))) break;
    if (Date.now() + TWO_MINUTES_MS + 30_000 > budgetEnd) {
      tried.push('no time left for another step');
      break;
    }
    options.progress(`largest N within two minutes: trying ${next}`);
    const result = await measureSize(next, false, TWO_MINUTES_MS, options);
    last = result.journeys;
    const inTime = inTwoMinutes(last);
    tried.push(`${next}: ${inTime ? `${Math.round(last.makespanMs / 1000)} s` : 'over two minutes'}`);
    if (inTime) best = Math.max(best, next);
  }
  return { count: best, tried };
}

/** The sizes to run: BENCH_JOURNEY_SIZES=1000 (say) runs only those, e.g. to measure one N again. */
function journeySizes(options: BenchOptions): number[] {
  const asked = process.env.BENCH_JOURNEY_SIZES;
  if (!asked) return options.quick ? [20, 100] : [100, 1000];
  const sizes = asked.split(',').map((size) => Number(size.trim()));
  if (sizes.some((size) => !Number.isInteger(size) || size < 1))
    throw new Error(`BENCH_JOURNEY_SIZES must be whole numbers above 0, separated by commas (got "${asked}")`);
  return sizes;
}

export async function benchJourneys(options: BenchOptions): Promise<Figure[]> {
  const sizes = journeySizes(options);
  const runLimitMs = options.cluster ? CLUSTER_RUN_LIMIT_MS : RUN_LIMIT_MS;
  const budgetEnd = Date.now() + BENCHMARK_BUDGET_MS;
  const figures: Figure[] = [];
  const measured: JourneyRunResult[] = [];
  for (const count of sizes) {
    options.progress(`N=${count}`);
    const result = await measureSize(count, true, runLimitMs, options);
    figures.push(...sizeFigures(result, options));
    measured.push(result.journeys);
  }
  // Sizes asked for by name are measured and nothing else.
  if (!options.quick && !options.cluster && !process.env.BENCH_JOURNEY_SIZES) {
    const found = await largestWithinTwoMinutes(measured, 2, budgetEnd, options);
    figures.push({
      name: 'journeys: largest N within two minutes',
      value: found.count,
      unit: 'journeys',
      method: `stepped from the last run's throughput, at most 2 more runs cut off at 120 s, within the benchmark's 8-minute budget (tried ${found.tried.join('; ')})`,
    });
  }
  return figures;
}
