/**
 * The worker's memory budget (WORKER_MEMORY_MB): one number the worker keeps, from which the V8 heap
 * limit (`--max-old-space-size`, set by whatever launches the worker: bin/rampflow.cjs, the image's
 * bin/docker-entrypoint.sh, the benchmarks) and the workflow cache follow. docs/deploying/sizing.md
 * explains the figures and how to size a deployment from them.
 *
 * What a worker's resident memory is made of:
 * - a fixed part: Node, the Temporal core (Rust, outside the V8 heap), the loaded workflow bundle and
 *   the activities' code, about WORKER_BASE_MIB at rest;
 * - the workflow cache: each cached workflow keeps its state, the SDK's for it, and its own instances
 *   of the workflow modules (about 130 KiB: workflows load no zod, workflows/common/checks.ts says
 *   why), CACHED_WORKFLOW_MIB with a margin over the 0.93 MiB an ACTIVE journey measured
 *   (`npm run bench -- memory`, 1,000 cached), for workflows caught mid-task with more in hand;
 * - what is in flight (activity calls, payloads, garbage not yet collected): HEADROOM_SHARE of the budget.
 *
 * So the cache holds (budget - base - headroom) / per-workflow, and the heap may use the budget less
 * what lives outside it. A workflow evicted from the cache is replayed from its history when it next
 * wakes (at most JOURNEY_HISTORY_EVENT_LIMIT events for a journey, which continues as new before).
 */
import { MIN_WORKER_MEMORY_MB, WorkerMemoryMbSchema } from '../config/worker-memory';

export { DEFAULT_WORKER_MEMORY_MB, MIN_WORKER_MEMORY_MB } from '../config/worker-memory';

/** Resident memory of a worker at rest with an empty cache (bench/memory.ts measures it). */
export const WORKER_BASE_MIB = 240;
/** What one cached workflow adds to the worker's resident memory (bench/memory.ts: 0.93 MiB an ACTIVE journey, and a margin). */
export const CACHED_WORKFLOW_MIB = 1.25;
/** The share of the budget left for what is in flight and for garbage between collections. */
export const HEADROOM_SHARE = 0.3;
/**
 * Resident memory outside V8's old space: Node's own, the Temporal core's, buffers, and V8's young
 * generation (48 MiB on Node 20), which `--max-old-space-size` does not count.
 */
export const OUTSIDE_HEAP_MIB = 150;

export interface WorkerMemoryPlan {
  budgetMiB: number;
  /** `--max-old-space-size` for the worker's Node process. */
  heapLimitMiB: number;
  /** The workflow worker's `maxCachedWorkflows`. */
  maxCachedWorkflows: number;
}

/** The heap limit and the cache size a budget allows (the formulas in this file's comment). */
export function workerMemoryPlan(budgetMiB: number): WorkerMemoryPlan {
  const forCache = budgetMiB * (1 - HEADROOM_SHARE) - WORKER_BASE_MIB;
  return {
    budgetMiB,
    heapLimitMiB: Math.floor(budgetMiB - OUTSIDE_HEAP_MIB),
    // The SDK wants 0 (no cache) or at least 2; the minimum budget leaves far more than that.
    maxCachedWorkflows: Math.max(2, Math.floor(forCache / CACHED_WORKFLOW_MIB)),
  };
}

/** The plan for WORKER_MEMORY_MB as a launcher reads it, before the worker's own configuration is parsed. */
export function workerMemoryPlanFromEnv(env: NodeJS.ProcessEnv = process.env): WorkerMemoryPlan {
  const parsed = WorkerMemoryMbSchema.safeParse(env.WORKER_MEMORY_MB || undefined);
  if (!parsed.success)
    throw new Error(
      `WORKER_MEMORY_MB: a whole number of MiB from ${MIN_WORKER_MEMORY_MB} (got "${env.WORKER_MEMORY_MB}")`,
    );
  return workerMemoryPlan(parsed.data);
}

/** `--max-old-space-size=<heap>` for a worker started with this environment. */
export function workerHeapFlag(env: NodeJS.ProcessEnv = process.env): string {
  return `--max-old-space-size=${workerMemoryPlanFromEnv(env).heapLimitMiB}`;
}
