/** The worker's memory budget (WORKER_MEMORY_MB) and what follows from it: the heap limit and the workflow cache. */
import { describe, expect, it } from 'vitest';
import {
  CACHED_WORKFLOW_MIB,
  DEFAULT_WORKER_MEMORY_MB,
  HEADROOM_SHARE,
  MIN_WORKER_MEMORY_MB,
  OUTSIDE_HEAP_MIB,
  WORKER_BASE_MIB,
  workerHeapFlag,
  workerMemoryPlan,
  workerMemoryPlanFromEnv,
} from '../../workers/memory-budget';

/** What a worker holding a full cache is expected to be resident at: the formula's own parts. */
const fullCacheMiB = (budgetMiB: number) =>
  WORKER_BASE_MIB + workerMemoryPlan(budgetMiB).maxCachedWorkflows * CACHED_WORKFLOW_MIB;

describe('the worker memory plan', () => {
  it("caches what the budget holds once the worker's fixed part and the headroom are set aside", () => {
    const plan = workerMemoryPlan(1024);
    expect(plan.maxCachedWorkflows).toBe(
      Math.floor((1024 * (1 - HEADROOM_SHARE) - WORKER_BASE_MIB) / CACHED_WORKFLOW_MIB),
    );
    expect(plan.heapLimitMiB).toBe(1024 - OUTSIDE_HEAP_MIB);
  });

  it('keeps a full cache within the budget, headroom left, at every budget', () => {
    for (let budget = MIN_WORKER_MEMORY_MB; budget <= 16_384; budget += 64) {
      const plan = workerMemoryPlan(budget);
      expect(fullCacheMiB(budget)).toBeLessThanOrEqual(budget * (1 - HEADROOM_SHARE));
      expect(plan.maxCachedWorkflows).toBeGreaterThanOrEqual(2);
      // The heap may grow to the budget less what lives outside it, never beyond.
      expect(plan.heapLimitMiB + OUTSIDE_HEAP_MIB).toBeLessThanOrEqual(budget);
      expect(plan.heapLimitMiB).toBeGreaterThan(fullCacheMiB(budget) - OUTSIDE_HEAP_MIB);
    }
  });

  it('grows the cache with the budget', () => {
    expect(workerMemoryPlan(2048).maxCachedWorkflows).toBeGreaterThan(workerMemoryPlan(1024).maxCachedWorkflows);
    expect(workerMemoryPlan(1024).maxCachedWorkflows).toBeGreaterThan(
      workerMemoryPlan(DEFAULT_WORKER_MEMORY_MB).maxCachedWorkflows,
    );
  });

  it('reads WORKER_MEMORY_MB, 512 when unset or empty, and refuses what a worker cannot run in', () => {
    expect(workerMemoryPlanFromEnv({}).budgetMiB).toBe(512);
    expect(workerMemoryPlanFromEnv({ WORKER_MEMORY_MB: '' }).budgetMiB).toBe(512);
    expect(workerMemoryPlanFromEnv({ WORKER_MEMORY_MB: '2048' })).toEqual(workerMemoryPlan(2048));
    for (const bad of ['256', '512.5', 'lots', '-1'])
      expect(() => workerMemoryPlanFromEnv({ WORKER_MEMORY_MB: bad }), bad).toThrow(/WORKER_MEMORY_MB/);
  });

  it('gives launchers the heap flag', () => {
    expect(workerHeapFlag({ WORKER_MEMORY_MB: '1024' })).toBe(
      `--max-old-space-size=${workerMemoryPlan(1024).heapLimitMiB}`,
    );
  });
});
