/**
 * An operator's update (retry, cancel, close, attach, resend) sent so that a server that is busy for
 * a moment does not fail it: one update id for every send, so the server takes it at most once.
 *
 * The SDK already re-sends an update on the gRPC codes it deems retryable, ten times over about half a
 * minute. Two answers fall outside that. A workflow task that fails while it carries the update (it
 * timed out on a starved worker, say) aborts it with FAILED_PRECONDITION, "workflow update due to
 * unexpected workflow task failure", which the SDK does not retry: the workflow never accepted it,
 * so sending it again is the same request, not a second one. And a frontend that stays busy beyond
 * the SDK's ten tries. A bulk retry of thousands of parked journeys on a loaded machine meets both
 * (test/faults/rate-limit.test.ts saw 9 of 2,000 fail so).
 *
 * Re-sent with the same update id, an update the server has already taken answers with its first
 * outcome instead of running again; one the workflow refused is never re-sent (its validator said why).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  isGrpcServiceError,
  ServiceError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type WorkflowHandle,
} from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';

/**
 * The gRPC answers that say "not now" rather than "no", once the SDK's own re-sends are spent:
 * UNKNOWN 2, DEADLINE_EXCEEDED 4, RESOURCE_EXHAUSTED 8, FAILED_PRECONDITION 9, ABORTED 10, UNAVAILABLE 14.
 */
const NOT_NOW = new Set<number>([2, 4, 8, 9, 10, 14]);

/** How often, and how far apart, an update is sent again. */
export interface Resends {
  /** Sends in all, the first included (default 5). */
  attempts: number;
  /** The wait before the second send; each later wait doubles (default 1 s: 1, 2, 4, 8 s). */
  firstDelayMs: number;
}

const DEFAULT_RESENDS: Resends = { attempts: 5, firstDelayMs: 1_000 };

/** Whether `error` says the server could not take the update now (so the same update may be sent again). */
export function isNotNow(error: unknown): boolean {
  if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return true;
  return error instanceof ServiceError && isGrpcServiceError(error.cause) && NOT_NOW.has(error.cause.code);
}

/** `handle.executeUpdate(update, { args })`, sent again with the same update id while the server answers "not now". */
export async function executeUpdateOnce<Ret, Args extends [unknown, ...unknown[]]>(
  handle: Pick<WorkflowHandle, 'executeUpdate'>,
  update: UpdateDefinition<Ret, Args>,
  args: Args,
  resends: Resends = DEFAULT_RESENDS,
): Promise<Ret> {
  const updateId = randomUUID();
  for (let attempt = 1; ; attempt++) {
    try {
      return await handle.executeUpdate(update, { args, updateId });
    } catch (error) {
      if (attempt >= resends.attempts || !isNotNow(error)) throw error;
      await sleep(resends.firstDelayMs * 2 ** (attempt - 1));
    }
  }
}
