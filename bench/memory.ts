/**
 * The worker's memory per ACTIVE journey, and whether it keeps its budget (WORKER_MEMORY_MB,
 * workers/memory-budget.ts).
 *
 * Per journey: a worker whose cache holds every journey (WORKER_MAX_CACHED_WORKFLOWS above N), N
 * journeys brought to ACTIVE (customers prepared first, as in bench/journeys.ts, so the KYC wait is
 * not part of it), then its resident memory less what it was at rest before the first journey,
 * divided by N. Beside it, the floor: Temporal's own worker with N floor journeys cached, each
 * waiting after its five activities for a webhook that never comes (bench/floor/), measured the
 * same way.
 *
 * The module copy: what each cached workflow's own instance of the bundle's modules costs
 * (bench/support/module-copy.ts), a size that does not depend on the machine.
 *
 * The budget: a worker on the default budget (nothing set but WORKER_MEMORY_MB's default) takes N
 * journeys to ACTIVE, more than its cache holds, so it evicts; its peak resident memory (VmHWM) is
 * printed beside the budget.
 */
import { Client } from '@temporalio/client';
import { createRampflowClient } from '../client';
import { DEFAULT_WORKER_MEMORY_MB, workerMemoryPlan } from '../workers/memory-budget';
import { startFloorWorker } from './floor/run-floor';
import { FLOOR_JOURNEY_WEBHOOKS, floorEventSignal } from './floor/messages';
import type { floorJourney } from './floor/workflows';
import { journeyRequest, prepareCustomer } from './journeys/partner';
import type { BenchOptions } from './options';
import type { Figure } from './report';
import type { BenchChild } from './support/child-process';
import { forEachLimited, sleep } from './support/concurrency';
import { measureModuleCopy } from './support/module-copy';
import { startRampflowStack } from './support/rampflow-stack';
import { BENCH_PAYLOAD_KEYS, countWorkflows, startBenchTemporal, type BenchTemporal } from './support/temporal';

const START_CONCURRENCY = 32;
/** Each run is cut off after this long; what was ACTIVE by then is what is divided by. */
const RUN_LIMIT_MS = Number(process.env.BENCH_MEMORY_LIMIT_MINUTES ?? 20) * 60_000;
/** After the last journey is ACTIVE: its last tasks finish and the resident size settles. */
const SETTLE_MS = 10_000;

function sizes(variable: string, fallback: number): number {
  const asked = Number(process.env[variable] ?? fallback);
  if (!Number.isInteger(asked) || asked < 1) throw new Error(`${variable} must be a whole number above 0`);
  return asked;
}

interface CachedRun {
  count: number;
  /** Journeys that reached their waiting point (ACTIVE, for rampflow) within the limit. */
  reached: number;
  restMiB: number;
  endMiB: number;
  peakMiB: number;
}

/** Every journey started is cached (the cache is larger than N), ACTIVE or on its way: divided by all of them. */
const perJourney = (run: CachedRun) => (run.endMiB - run.restMiB) / run.count;

async function settledRss(worker: BenchChild): Promise<number> {
  await sleep(SETTLE_MS);
  return worker.memory().rssMiB;
}

/** N rampflow journeys to ACTIVE on a worker with `workerEnv`; its memory at rest, at the end and at its peak. */
async function rampflowRun(
  temporal: BenchTemporal,
  name: string,
  count: number,
  workerEnv: Record<string, string>,
  options: BenchOptions,
): Promise<CachedRun> {
  const stack = await startRampflowStack(temporal, { name, deliveryTickSeconds: 1, workerEnv });
  try {
    const worker = stack.worker!;
    const rampflow = await createRampflowClient({
      connection: temporal.connection,
      namespace: temporal.server.namespace,
      taskQueue: stack.taskQueue,
      payloadKeys: BENCH_PAYLOAD_KEYS,
    });
    const ids = Array.from({ length: count }, (_, i) => `${name}-${i}`);
    options.progress(`  ${name}: preparing ${count} customers`);
    await forEachLimited(ids, 16, (externalId) => prepareCustomer(stack.ramp, externalId));
    const restMiB = await settledRss(worker);
    await stack.registerReceiver();
    options.progress(`  ${name}: ${count} journeys to ACTIVE (worker at rest: ${Math.round(restMiB)} MiB)`);
    const starting = forEachLimited(ids, START_CONCURRENCY, async (externalId) => {
      await rampflow.startJourney(journeyRequest(externalId, { pollIntervalSeconds: 10 }));
    });
    const activeQuery = `WorkflowType = 'customerJourney' AND RampStage = 'ACTIVE' AND RampExternalId STARTS_WITH '${name}-'`;
    const reached = await waitFor(
      () => countWorkflows(temporal.client, activeQuery),
      count,
      worker,
      (line) => options.progress(`    ${name}: ${line}`),
    );
    await starting;
    const endMiB = await settledRss(worker);
    return { count, reached, restMiB, endMiB, peakMiB: worker.memory().peakMiB };
  } finally {
    await stack.stop();
  }
}

/** N floor journeys, each left waiting after its five activities; the floor worker's memory as above. */
async function floorRun(temporal: BenchTemporal, count: number, options: BenchOptions): Promise<CachedRun> {
  const floor = await startFloorWorker(temporal, `memory-${count}`);
  try {
    const restMiB = await settledRss(floor.worker);
    const plain = new Client({ connection: temporal.client.connection, namespace: temporal.client.options.namespace });
    const prefix = `floor-memory-${Date.now().toString(36)}-`;
    options.progress(`  floor: ${count} journeys (worker at rest: ${Math.round(restMiB)} MiB)`);
    await forEachLimited(
      Array.from({ length: count }, (_, i) => `${prefix}${i}`),
      START_CONCURRENCY,
      async (workflowId) => {
        // Only the first webhook: the journey runs its five activities, then waits for the second for ever.
        await plain.workflow.signalWithStart<typeof floorJourney, [string]>('floorJourney', {
          workflowId,
          taskQueue: floor.taskQueue,
          args: [],
          signal: floorEventSignal,
          signalArgs: [FLOOR_JOURNEY_WEBHOOKS[0]],
        });
      },
    );
    // Waiting: no workflow or activity task left for the queue (its backlog, approximately, from the server).
    const waiting = async () => ((await backlog(plain, floor.taskQueue)) === 0 ? count : 0);
    const reached = await waitFor(waiting, count, floor.worker, (line) => options.progress(`    floor: ${line}`));
    const endMiB = await settledRss(floor.worker);
    return { count, reached, restMiB, endMiB, peakMiB: floor.worker.memory().peakMiB };
  } finally {
    await floor.worker.stop();
  }
}

/** Tasks waiting on the queue, workflow and activity, from the server's enhanced task queue description. */
async function backlog(client: Client, taskQueue: string): Promise<number> {
  let total = 0;
  for (const taskQueueType of [1, 2]) {
    const answer = await client.workflowService.describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name: taskQueue },
      taskQueueType,
      reportStats: true,
    });
    total += Number(answer.stats?.approximateBacklogCount ?? 0);
  }
  return total;
}

async function waitFor(
  reachedNow: () => Promise<number>,
  count: number,
  worker: BenchChild,
  progress: (line: string) => void,
): Promise<number> {
  const started = Date.now();
  let reached = 0;
  let lastProgress = started;
  let quietSince = 0;
  while (Date.now() - started < RUN_LIMIT_MS) {
    worker.assertAlive();
    await sleep(1000);
    reached = await reachedNow();
    if (reached >= count) {
      // Twice in a row, three seconds apart: a backlog of 0 can be a moment between tasks.
      if (quietSince && Date.now() - quietSince > 3000) return reached;
      quietSince ||= Date.now();
    } else quietSince = 0;
    if (Date.now() - lastProgress > 15_000) {
      lastProgress = Date.now();
      progress(
        `${Math.round((Date.now() - started) / 1000)} s: ${reached}/${count}, worker ${Math.round(worker.memory().rssMiB)} MiB`,
      );
    }
  }
  return reached;
}

export async function benchMemory(options: BenchOptions): Promise<Figure[]> {
  const cachedCount = sizes('BENCH_MEMORY_CACHED', options.quick ? 100 : 1000);
  const budgetCount = sizes('BENCH_MEMORY_BUDGET_JOURNEYS', options.quick ? 300 : 5000);
  const copy = await measureModuleCopy();
  const figures: Figure[] = [
    {
      name: "memory: the bundle's modules each cached workflow instantiates",
      value: copy.kibPerWorkflow,
      unit: 'KiB',
      method: `${copy.modules} modules (${copy.zodModules} of them zod's) instantiated per workflow, as the SDK's reusable V8 context does; heap after forced collections over 40 copies (bench/support/module-copy.ts)`,
    },
  ];
  const temporal = await startBenchTemporal();
  try {
    if (process.env.BENCH_MEMORY_SKIP_CACHED !== '1') {
      const floor = await floorRun(temporal, cachedCount, options);
      // A budget far above what N journeys take, so every one stays cached.
      const rampflow = await rampflowRun(
        temporal,
        `memory-cached-${cachedCount}`,
        cachedCount,
        { WORKER_MEMORY_MB: '16384', WORKER_MAX_CACHED_WORKFLOWS: String(cachedCount * 2) },
        options,
      );
      const cut = (run: CachedRun) =>
        run.reached < run.count
          ? ` (CUT OFF: ${run.reached}/${run.count} at their waiting point within ${RUN_LIMIT_MS / 60_000} minutes, the rest cached on their way)`
          : '';
      figures.push(
        {
          name: `memory: MiB per ACTIVE journey at ${rampflow.count}`,
          value: perJourney(rampflow),
          unit: 'MiB',
          target: '<= 1',
          met: perJourney(rampflow) <= 1,
          method: `rampflow worker child process, every journey cached: resident ${Math.round(rampflow.endMiB)} MiB with ${rampflow.reached} of ${rampflow.count} journeys ACTIVE less ${Math.round(rampflow.restMiB)} MiB at rest, over ${rampflow.count}; peak ${Math.round(rampflow.peakMiB)} MiB${cut(rampflow)}`,
        },
        {
          name: `memory: floor MiB per waiting journey at ${floor.count}`,
          value: perJourney(floor),
          unit: 'MiB',
          method: `floor worker (bench/floor/) with ${floor.count} floor journeys cached, each waiting after its 5 activities: resident ${Math.round(floor.endMiB)} MiB less ${Math.round(floor.restMiB)} MiB at rest, over ${floor.count}; rampflow / floor ${(perJourney(rampflow) / perJourney(floor)).toFixed(2)}x${cut(floor)}`,
        },
      );
    }
    if (process.env.BENCH_MEMORY_SKIP_BUDGET === '1') return figures;
    const plan = workerMemoryPlan(DEFAULT_WORKER_MEMORY_MB);
    const budget = await rampflowRun(temporal, `memory-budget-${budgetCount}`, budgetCount, {}, options);
    figures.push({
      name: `memory: peak resident with ${budget.reached} ACTIVE journeys on the default budget`,
      value: budget.peakMiB,
      unit: 'MiB',
      target: `<= ${DEFAULT_WORKER_MEMORY_MB}`,
      met: budget.peakMiB <= DEFAULT_WORKER_MEMORY_MB,
      method: `rampflow worker child process with WORKER_MEMORY_MB unset (${DEFAULT_WORKER_MEMORY_MB}: heap limit ${plan.heapLimitMiB} MiB, cache ${plan.maxCachedWorkflows} workflows), VmHWM from /proc; ${budget.reached}/${budget.count} journeys ACTIVE${budget.reached < budget.count ? ` within ${RUN_LIMIT_MS / 60_000} minutes (cut off)` : ''}, ${Math.round(budget.endMiB)} MiB resident at the end`,
    });
  } finally {
    await temporal.stop();
  }
  return figures;
}
