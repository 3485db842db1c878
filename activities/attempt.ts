/**
 * The limits of one activity attempt's calls to the service, derived in this one place from what
 * Temporal gave the attempt: its start-to-close timeout and its cancellation signal.
 *
 * An attempt must never outlive its start-to-close timeout: once it passes, Temporal schedules the
 * next attempt, and a request the old one sends after that overlaps it. So every request ends (its
 * HTTP timeouts shrink to fit, and it is aborted) a margin before the timeout, counted from when the
 * attempt started here. The activity's cancellation signal (a cancelled workflow, a heartbeat
 * timeout, a worker shutting down) reaches undici too, so a request is abandoned as soon as the
 * attempt is.
 */
import { Context } from '@temporalio/activity';
import type { CallLimits } from '../ramp';

/**
 * The margin kept between an attempt's last request and its start-to-close timeout: a fifth of the
 * timeout, between half a second and ten seconds. It absorbs the difference between the server's
 * start time and ours (task delivery) and the work after the last answer (mapping, completion).
 */
export function httpBudgetMs(startToCloseTimeoutMs: number): number {
  const margin = Math.min(10_000, Math.max(500, startToCloseTimeoutMs * 0.2));
  return Math.max(0, startToCloseTimeoutMs - margin);
}

/** The context of the activity attempt running this code; undefined outside one (a test calling the function directly). */
export function currentActivity(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/** The limits of the attempt that started at `startedAt` (epoch ms). */
export function attemptLimits(context: Context, startedAt: number): CallLimits {
  const timeout = context.info.startToCloseTimeoutMs;
  return {
    signal: context.cancellationSignal,
    // Whole milliseconds: a start-to-close the server capped to what is left of a schedule-to-close is
    // fractional, and timers (AbortSignal.timeout) refuse a fractional delay.
    ...(timeout > 0 ? { deadlineAt: Math.floor(startedAt + httpBudgetMs(timeout)) } : {}),
  };
}
