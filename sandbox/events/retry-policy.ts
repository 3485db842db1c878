/**
 * The interface's delivery retry policy ("Retry policy"), exactly: a scheduler runs every minute;
 * after a failed attempt the next one waits 10 minutes, 1 hour, 1 day, then 1 week; five attempts in
 * all, then the event stays failed. Waits are counted from the failed attempt (DESIGN), and an
 * attempt happens at the first scheduler run at or after its due time.
 */
export const RETRY_WAITS_SECONDS = [10 * 60, 60 * 60, 24 * 60 * 60, 7 * 24 * 60 * 60] as const;

export const MAX_ATTEMPTS = RETRY_WAITS_SECONDS.length + 1;

/** Seconds to wait after failed attempt number `attempt` (1-based), or undefined when it was the last. */
export function waitAfterFailedAttempt(attempt: number): number | undefined {
  return RETRY_WAITS_SECONDS[attempt - 1];
}

/** The first scheduler run at or after `ms`; runs fall on whole multiples of the tick. */
export function tickAtOrAfter(ms: number, tickMs: number): number {
  return Math.ceil(ms / tickMs) * tickMs;
}

/** The first scheduler run strictly after `ms`: the run that picks up an event recorded at `ms`. */
export function tickAfter(ms: number, tickMs: number): number {
  return Math.floor(ms / tickMs) * tickMs + tickMs;
}
