/**
 * The bounds of WORKER_MEMORY_MB, the worker's memory budget: here so config/env.ts reads it without
 * importing the worker; what the budget buys (cache and heap) is workers/memory-budget.ts.
 */
import { z } from 'zod';

/** The budget when WORKER_MEMORY_MB is unset. */
export const DEFAULT_WORKER_MEMORY_MB = 512;
/** The smallest budget a worker can run in: its fixed part plus room for a few workflows. */
export const MIN_WORKER_MEMORY_MB = 384;

export const WorkerMemoryMbSchema = z.coerce
  .number()
  .int()
  .min(MIN_WORKER_MEMORY_MB)
  .max(1_048_576)
  .default(DEFAULT_WORKER_MEMORY_MB);
