/**
 * When and how long to wait before another attempt. The service has no idempotency key, so what
 * may be retried is decided by the caller (http-client.ts); this file only spaces the attempts.
 */

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Upper bound of the first wait; doubles per attempt. */
  baseDelayMs: number;
  /** No single wait is longer; a Retry-After beyond it ends the retries (a later, outer retry fits better). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 2_000 };

/**
 * "Full jitter": a uniform wait between zero and the exponential bound, so clients that failed
 * together do not retry together.
 */
export function backoffDelayMs(policy: RetryPolicy, failedAttempt: number, random: () => number = Math.random): number {
  const bound = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failedAttempt - 1));
  return Math.floor(random() * bound);
}

/**
 * The wait a `Retry-After` header asks for, in milliseconds: delta-seconds or an HTTP date.
 * Undefined when the header is absent or unreadable.
 */
export function retryAfterMs(header: string | undefined, nowMs: number): number | undefined {
  if (header === undefined) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
