/**
 * `rampflow worker` keeps the budget it is given (WORKER_MEMORY_MB): started as operators start it,
 * its workflow cache and its V8 heap limit are the ones the budget sets (workers/memory-budget.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workerMemoryPlan } from '../../workers/memory-budget';
import { startTestSandbox, type TestSandbox } from '../support/sandbox';
import { uniqueTaskQueue } from '../support/temporal';
import { until } from '../support/until';
import { startWorkerProcess, testWorkerEnv } from '../support/worker-process';

/** V8 adds its young generation to the old space's limit (48 MiB on Node 20's defaults). */
const YOUNG_GENERATION_MIB = 64;

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

interface StartedLine {
  memoryBudgetMiB: number;
  maxCachedWorkflows: number;
  heapLimitMiB: number;
}

async function startedWith(memoryMb: string): Promise<StartedLine> {
  const taskQueue = uniqueTaskQueue('worker-memory');
  const worker = startWorkerProcess({
    ...testWorkerEnv({ taskQueue, sandboxUrl: sandbox.sandbox.url, metricsPort: 0 }),
    WORKER_MEMORY_MB: memoryMb,
  });
  try {
    // A start bundles the workflows when there is no prebuilt bundle: slow on a loaded machine.
    const line = await until(
      'the worker to start',
      async () =>
        worker
          .output()
          .split('\n')
          .find((text) => text.includes('"worker started"')),
      240_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; the worker printed:\n${worker.output()}`);
    });
    return JSON.parse(line) as StartedLine;
  } finally {
    worker.child.kill('SIGTERM');
    await worker.exited;
  }
}

describe('rampflow worker with WORKER_MEMORY_MB', () => {
  it(
    'caches as many workflows as its budget holds, and its heap stops where the budget says',
    { timeout: 600_000 },
    async () => {
      for (const budget of [400, 1024]) {
        const plan = workerMemoryPlan(budget);
        const started = await startedWith(String(budget));
        expect(started.memoryBudgetMiB).toBe(budget);
        // What the SDK compiled into the workflow worker's options, not what was asked for.
        expect(started.maxCachedWorkflows).toBe(plan.maxCachedWorkflows);
        expect(started.heapLimitMiB).toBeGreaterThanOrEqual(plan.heapLimitMiB);
        expect(started.heapLimitMiB).toBeLessThanOrEqual(plan.heapLimitMiB + YOUNG_GENERATION_MIB);
      }
    },
  );
});
