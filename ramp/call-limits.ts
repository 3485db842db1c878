/**
 * What bounds the calls made on behalf of one piece of work (in rampflow, one attempt of a Temporal
 * activity): a signal that abandons them, a deadline every attempt on the wire must end by, and a
 * hook told just before a POST leaves.
 *
 * The limits travel with the async context (AsyncLocalStorage), the way Temporal's own activity
 * context does, so every call the work makes is bounded, including those made by helpers that hold
 * the client rather than receive it, and no endpoint module has to pass them along.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface CallLimits {
  /** Abandons the calls: the request on the wire is aborted, and no further attempt or wait starts. */
  signal?: AbortSignal;
  /** Epoch milliseconds (local clock) by which every attempt must have ended; its timeouts shrink to fit. */
  deadlineAt?: number;
  /**
   * Awaited before each POST attempt is sent: the caller records that a request which may take
   * effect is about to leave. A POST that then gets no answer has an unknown outcome.
   */
  beforePost?: () => Promise<void>;
}

const current = new AsyncLocalStorage<CallLimits>();

/** Runs `work` with every call it makes (directly or through helpers) bounded by `limits`. */
export function withCallLimits<T>(limits: CallLimits, work: () => Promise<T>): Promise<T> {
  return current.run(limits, work);
}

/** The limits of the work this call belongs to, if it runs under any. */
export function currentCallLimits(): CallLimits | undefined {
  return current.getStore();
}

/** Why no further attempt may start, or undefined while one may. */
export function limitReached(limits: CallLimits | undefined, now: number): string | undefined {
  if (limits?.signal?.aborted) return 'the call was abandoned (cancelled)';
  if (limits?.deadlineAt !== undefined && now >= limits.deadlineAt) return 'the call ran out of time';
  return undefined;
}

/**
 * The signal one attempt on the wire is sent with: the caller's, and a timer for what is left until
 * the deadline. Undefined when there are no limits.
 */
export function attemptSignal(limits: CallLimits | undefined, now: number): AbortSignal | undefined {
  const signals: AbortSignal[] = [];
  if (limits?.signal) signals.push(limits.signal);
  if (limits?.deadlineAt !== undefined) signals.push(AbortSignal.timeout(Math.max(1, limits.deadlineAt - now)));
  if (signals.length <= 1) return signals[0];
  return AbortSignal.any(signals);
}

/** Waits `ms`, or less when the signal aborts first (then the caller sees limitReached). */
export async function pause(
  ms: number,
  sleep: (ms: number) => Promise<void>,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (signal === undefined) return sleep(ms);
  if (signal.aborted) return;
  let stop: () => void = () => undefined;
  const aborted = new Promise<void>((resolve) => {
    stop = () => resolve();
    signal.addEventListener('abort', stop, { once: true });
  });
  try {
    await Promise.race([sleep(ms), aborted]);
  } finally {
    signal.removeEventListener('abort', stop);
  }
}
