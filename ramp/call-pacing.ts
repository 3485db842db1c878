/**
 * What keeps one process from flooding the service: every attempt on the wire, from every client
 * of the same partner account in the process, passes one pacer first (README, "Calls to the service
 * are rate-limited").
 *
 * - The gate: a 429 closes it until its Retry-After has passed, for every call of the process, not
 *   just the one refused: the service said the partner is over its rate, and any call sent before
 *   then would be refused too (and may count against the partner). A call that meets the closed gate
 *   waits for it when the wait fits its deadline; otherwise it is refused unsent with the remaining
 *   wait, which an activity turns into its `nextRetryDelay` (activities/failures.ts).
 * - The window (optional, `maxCallsPerSecond`): no more than that many attempts start in any sliding
 *   second of this process. The partner-wide bound across workers is the service task queue's rate
 *   limit (workers/worker.ts); this one catches what that cannot see: an activity that makes several
 *   calls (list pages, a GET's retries), local activities, and calls made outside activities.
 *
 * Pacers are shared per partner account (base URL and API key) through the process, so two clients
 * of the same account (the worker's, a CLI's) obey the same gate.
 */

/** The wait a 429 without a usable Retry-After imposes: the service's rate is per second. */
export const DEFAULT_RATE_LIMIT_WAIT_MS = 1_000;

/** Why an attempt may not be sent yet, and until when. */
export interface Hold {
  /** Milliseconds until the attempt may start. */
  waitMs: number;
  /** `gate`: a 429's Retry-After; `window`: this process's own calls per second. */
  reason: 'gate' | 'window';
}

export class CallPacer {
  #maxCallsPerSecond: number | undefined;
  #gateOpensAt = 0;
  /** Start times of the attempts of the last second, oldest first (at most maxCallsPerSecond of them). */
  readonly #starts: number[] = [];

  constructor(maxCallsPerSecond?: number) {
    this.limitTo(maxCallsPerSecond);
  }

  get maxCallsPerSecond(): number | undefined {
    return this.#maxCallsPerSecond;
  }

  /** Lowers the calls per second of the process; undefined leaves it as it is (the smallest asked for wins). */
  limitTo(maxCallsPerSecond: number | undefined): void {
    if (maxCallsPerSecond === undefined) return;
    if (!Number.isFinite(maxCallsPerSecond) || maxCallsPerSecond <= 0) throw new Error('maxCallsPerSecond must be a positive number');
    this.#maxCallsPerSecond = Math.min(this.#maxCallsPerSecond ?? Infinity, maxCallsPerSecond);
  }

  /** Closes the gate for `waitMs` from `now` (never shortens a wait already imposed). */
  closeGate(waitMs: number, now: number): void {
    this.#gateOpensAt = Math.max(this.#gateOpensAt, now + Math.max(0, waitMs));
  }

  /** The gate's remaining wait at `now` (0 when open). */
  gateWaitMs(now: number): number {
    return Math.max(0, this.#gateOpensAt - now);
  }

  /**
   * Takes a place for an attempt starting at `now`, or says how long to wait before asking again.
   * Synchronous, so callers racing for the last place of a second cannot both get it. `pastGate`:
   * the caller has already waited the gate's wait it was told.
   */
  tryStart(now: number, pastGate = false): Hold | undefined {
    const gate = pastGate ? 0 : this.gateWaitMs(now);
    if (gate > 0) return { waitMs: gate, reason: 'gate' };
    const max = this.#maxCallsPerSecond;
    if (max !== undefined) {
      while (this.#starts.length > 0 && this.#starts[0]! <= now - 1_000) this.#starts.shift();
      if (this.#starts.length >= Math.floor(Math.max(1, max))) return { waitMs: Math.max(1, this.#starts[0]! + 1_000 - now), reason: 'window' };
      // A fraction below one call a second spaces single calls instead.
      if (max < 1 && this.#starts.length > 0 && now - this.#starts.at(-1)! < 1_000 / max) return { waitMs: Math.ceil(this.#starts.at(-1)! + 1_000 / max - now), reason: 'window' };
      this.#starts.push(now);
      if (max < 1 && this.#starts.length > 1) this.#starts.shift();
    }
    return undefined;
  }
}

const pacers = new Map<string, CallPacer>();

/** The process's pacer for one partner account; `maxCallsPerSecond` lowers its window when given. */
export function pacerFor(account: string, maxCallsPerSecond?: number): CallPacer {
  let pacer = pacers.get(account);
  if (pacer === undefined) {
    pacer = new CallPacer();
    pacers.set(account, pacer);
  }
  pacer.limitTo(maxCallsPerSecond);
  return pacer;
}
