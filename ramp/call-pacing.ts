/**
 * What keeps one process from flooding the service: every attempt on the wire, from every client
 * of the same partner account in the process, passes one pacer first (README, "Calls to the service
 * are rate-limited").
 *
 * - The places (optional, `maxCallsPerSecond` = M): an attempt holds one of M places from the moment
 *   it starts until one second after its answer (or its error) came back. So at most M calls of this
 *   process can reach the service in any one-second window, whatever the latency and its jitter: a
 *   call reaches the service between its start and its answer, and two calls whose arrivals are
 *   less than a second apart held their places at the same time. (A window over start times alone
 *   does not do that: calls started a little over a second apart arrive within one when the first
 *   were slow to leave or to travel.) Retries, list pages, local activities and attempts refused
 *   with 429 take a place like any other. Below one call a second, a single place is held for 1/M
 *   seconds after each answer.
 * - The gate: a 429 closes it until its Retry-After has passed, for every call of the process, not
 *   just the one refused: the service said the partner is over its rate, and any call sent before
 *   then would be refused too (and counts against the partner). A call that meets the closed gate
 *   waits for it when the wait fits its deadline; otherwise it is refused unsent with the remaining
 *   wait, which an activity turns into its `nextRetryDelay` (activities/failures.ts).
 *
 * - The lease (optional): a worker's share of the partner-wide rate, handed to it by
 *   workers/partner-rate.ts for a limited time. While a lease is set, the places are the lease's
 *   (never more than M); once it has run out, no attempt starts until it is renewed: a worker
 *   that cannot learn how many others share the partner's rate keeps silent rather than guess.
 * - The refusals: the pacer remembers when the latest attempt the service refused with 429 had
 *   started, so the partner-wide rate comes down only for refusals of calls sent at the current
 *   rate (workers/partner-rate.ts).
 *
 * Pacers are shared per partner account (base URL and API key) through the process, so two clients
 * of the same account (the worker's, a CLI's) obey the same places and gate.
 */

/**
 * The pacer's clock: milliseconds that start at the process's wall clock and then move with the
 * monotonic clock only. Every time the pacer holds (a place's second, the gate, a lease) is a duration
 * measured here, so a host whose wall clock is stepped (NTP, an operator) neither frees places early,
 * which would let a second hold twice the share, nor holds a lease past its time (found while the
 * chaos run's clock steps were built: test/ramp/pacer-clock-jump.test.ts, docs/guarantees/chaos.md).
 */
export const pacerNow = (): number => performance.timeOrigin + performance.now();

/** The wait a 429 without a usable Retry-After imposes: the service's rate is per second. */
export const DEFAULT_RATE_LIMIT_WAIT_MS = 1_000;

/** Why an attempt may not be sent yet, and for how long at least. */
export interface Hold {
  /** Milliseconds before asking again. */
  waitMs: number;
  /** `gate`: a 429's Retry-After; `window`: this process's own calls per second; `lease`: no share of the partner's rate. */
  reason: 'gate' | 'window' | 'lease';
}

/** A worker's share of the partner-wide rate (workers/partner-rate.ts), valid until `validUntil`. */
export interface Lease {
  /** Places: attempts that may have reached the service in any one second (0: none may start). */
  places: number;
  /** The pacer's clock (`pacerNow`), after which no attempt starts until a new lease. */
  validUntil: number;
}

/** How often a caller held back by a run-out or empty lease asks again. */
export const LEASE_WAIT_MS = 250;

/**
 * How long a call waits for a share before it is refused unsent (and its activity retried by
 * Temporal): longer than a starting worker's wait to join (workers/partner-rate.ts, JOIN_DELAY_MS),
 * so a start is waited out. Past it the worker has lost its share: the Temporal server was restarted
 * and forgot its pollers, or cannot be reached. Waiting on would hold the activity's slot, and a worker
 * whose slots are all held does not poll, so it is never counted again and never gets a share
 * (found by the chaos run, seed 48 on --cluster); refused, the slot frees, the worker polls, and the
 * call goes back to the server's queue in priority order.
 */
export const LEASE_WAIT_LIMIT_MS = 6_000;

export class CallPacer {
  #maxCallsPerSecond: number | undefined;
  #lease: Lease | undefined;
  #lastRefusedStartedAt: number | undefined;
  readonly #refusalListeners = new Set<() => void>();
  #gateOpensAt = 0;
  /** Attempts started and not yet ended: each holds a place. */
  #inFlight = 0;
  /** When the places of ended attempts free up (their end + the hold). */
  #freedAt: number[] = [];

  constructor(maxCallsPerSecond?: number) {
    this.limitTo(maxCallsPerSecond);
  }

  get maxCallsPerSecond(): number | undefined {
    return this.#maxCallsPerSecond;
  }

  /** Lowers the calls per second of the process; undefined leaves it as it is (the smallest asked for wins). */
  limitTo(maxCallsPerSecond: number | undefined): void {
    if (maxCallsPerSecond === undefined) return;
    if (!Number.isFinite(maxCallsPerSecond) || maxCallsPerSecond <= 0)
      throw new Error('maxCallsPerSecond must be a positive number');
    this.#maxCallsPerSecond = Math.min(this.#maxCallsPerSecond ?? Infinity, maxCallsPerSecond);
  }

  /** Sets (or, undefined, lifts) the lease: this worker's share of the partner-wide rate. */
  lease(lease: Lease | undefined): void {
    this.#lease = lease;
  }

  /** Notes that an attempt started at `startedAt` was refused with 429, and tells the listeners. */
  noteRefused(startedAt: number): void {
    this.#lastRefusedStartedAt = Math.max(this.#lastRefusedStartedAt ?? -Infinity, startedAt);
    for (const listener of this.#refusalListeners) listener();
  }

  /** Calls `listener` after each refusal (until the returned function is called). */
  onRefused(listener: () => void): () => void {
    this.#refusalListeners.add(listener);
    return () => this.#refusalListeners.delete(listener);
  }

  /** When the latest attempt refused with 429 had started (epoch ms), if any was. */
  get lastRefusedStartedAt(): number | undefined {
    return this.#lastRefusedStartedAt;
  }

  /** The places an attempt starting at `now` may use: the limit's, within the lease's while one is set. */
  placesAt(now: number): number | undefined {
    const max = this.#maxCallsPerSecond === undefined ? undefined : Math.max(1, Math.floor(this.#maxCallsPerSecond));
    if (this.#lease === undefined) return max;
    const leased = now > this.#lease.validUntil ? 0 : this.#lease.places;
    return Math.min(max ?? Infinity, leased);
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
   * Takes a place for an attempt starting at `now` (undefined: go, and call `ended` when it has an
   * answer or an error), or says how long to wait before asking again. Synchronous, so callers
   * racing for the last place cannot both get it. `pastGate`: the caller has already waited the
   * gate's wait it was told.
   */
  tryStart(now: number, pastGate = false): Hold | undefined {
    const gate = pastGate ? 0 : this.gateWaitMs(now);
    if (gate > 0) return { waitMs: gate, reason: 'gate' };
    const places = this.placesAt(now);
    if (places !== undefined) {
      this.#freedAt = this.#freedAt.filter((at) => at > now);
      // No place at all (a lease run out, or a share of none): ask again soon, a new lease may come.
      if (places === 0) return { waitMs: LEASE_WAIT_MS, reason: 'lease' };
      if (this.#inFlight + this.#freedAt.length >= places) {
        // A call still out frees its place no sooner than the hold from now.
        return {
          waitMs: Math.max(1, Math.min(this.#holdMs(), ...this.#freedAt.map((at) => at - now))),
          reason: 'window',
        };
      }
    }
    this.#inFlight += 1;
    return undefined;
  }

  /** An attempt `tryStart` let go has its answer (or its error) at `now`: its place frees a hold later. */
  ended(now: number): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
    if (this.#maxCallsPerSecond !== undefined || this.#lease !== undefined) this.#freedAt.push(now + this.#holdMs());
  }

  #holdMs(): number {
    return this.#maxCallsPerSecond === undefined ? 1_000 : holdMs(this.#maxCallsPerSecond);
  }
}

/** How long after its answer an attempt keeps its place: a second, or 1/M seconds below one call a second. */
function holdMs(maxCallsPerSecond: number): number {
  return maxCallsPerSecond >= 1 ? 1_000 : Math.ceil(1_000 / maxCallsPerSecond);
}

const pacers = new Map<string, CallPacer>();

/** The process's pacer for one partner account; `maxCallsPerSecond` lowers its limit when given. */
export function pacerFor(account: string, maxCallsPerSecond?: number): CallPacer {
  let pacer = pacers.get(account);
  if (pacer === undefined) {
    pacer = new CallPacer();
    pacers.set(account, pacer);
  }
  pacer.limitTo(maxCallsPerSecond);
  return pacer;
}
