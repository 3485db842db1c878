/**
 * The request layer: signed attempts, retries, clock correction and response typing.
 *
 * Retry rules (DESIGN "The signed client"): the service has no idempotency key, so
 * - a GET is retried on transport errors, 5xx and 429, with jittered backoff;
 * - a POST is retried only when the attempt provably never left the machine; any other transport
 *   failure, or a 5xx, becomes RampOutcomeUnknownError for the caller to reconcile;
 * - any request refused as UNAUTHORISED is retried once when the response's `Date` showed our clock
 *   was off: the refusal came before the service acted, and the next attempt carries a corrected
 *   timestamp.
 *
 * - a 429 is never retried here when the call runs under limits (an activity): it closes the process's
 *   gate for its Retry-After (call-pacing.ts) and surfaces as RampRateLimitedError, which the
 *   activity turns into a retry after that wait; outside an activity a GET waits at the gate and
 *   retries, as for a 5xx.
 *
 * Every attempt, retries included, first passes the process's pacer for the partner account
 * (call-pacing.ts): the gate a 429 closed, and the optional calls per second, for which the attempt
 * holds a place from its start until a second after its answer.
 *
 * Calls made under limits (call-limits.ts: an activity attempt's cancellation signal and deadline)
 * abort their request on the wire when the signal fires or the deadline passes, start no further
 * attempt or wait after that, and tell the caller before each POST leaves.
 */
import { randomUUID } from 'node:crypto';
import { Agent, type Dispatcher } from 'undici';
import type { z } from 'zod';
import { resolveAssumptions, type RampAssumptionOverrides, type RampAssumptions } from './assumptions';
import { attemptSignal, currentCallLimits, limitReached, pause } from './call-limits';
import {
  CallPacer,
  DEFAULT_RATE_LIMIT_WAIT_MS,
  LEASE_WAIT_LIMIT_MS,
  pacerFor,
  pacerNow,
  type Hold,
} from './call-pacing';
import { ServiceClock } from './clock';
import {
  RampConnectionError,
  RampOutcomeUnknownError,
  RampRateLimitedError,
  RampUnauthorisedError,
  type RampError,
} from './errors';
import { describeTransportError, requestNeverLeft } from './network-errors';
import { interpretResponse, type ResponseGeneration } from './response-interpretation';
import { DEFAULT_RETRY_POLICY, backoffDelayMs, retryAfterMs, type RetryPolicy } from './retry-policy';
import {
  hmacSigner,
  sendSignedAttempt,
  type TransportSettings,
  type WireRequest,
  type WireResponse,
} from './transport';
import { parseResponseBody } from './validation';

export interface RampClientOptions {
  /** `{base_url}`: scheme, authority and an optional path prefix, e.g. `https://api.example.com/partner`. */
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  /** An undici dispatcher (tests pass a MockAgent). Default: a keep-alive Agent the client owns and `close()` closes. */
  dispatcher?: Dispatcher;
  /** Per attempt: time allowed until the response headers arrive. */
  headersTimeoutMs?: number;
  /** Per attempt: time allowed between two chunks of the response body. */
  bodyTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  assumptions?: RampAssumptionOverrides;
  /** Local clock in milliseconds (tests move it). */
  now?: () => number;
  /** Waits between attempts (tests make it instant). */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Receives every attempt's canonical string, for debugging. It contains no secret. */
  onCanonicalString?: (canonical: string) => void;
  /** Nonce source; default a random UUID. Must never repeat (tests replaying signing vectors fix it). */
  newNonce?: () => string;
  /**
   * Told of every attempt on the wire, answered or not (the worker counts them: workers/service-metrics.ts).
   * It gets the endpoint's template path, never the query, a body or an id.
   */
  onAttempt?: (attempt: RampAttempt) => void;
  /**
   * At most this many attempts reach the service in any one second from this process, over every
   * client of the same account (this process's share of RAMP_MAX_CALLS_PER_SECOND; call-pacing.ts).
   * No limit when undefined; the 429 gate applies always.
   */
  maxCallsPerSecond?: number;
}

/** What a refusal unsent says, by why the pacer held the attempt. */
const HELD_BECAUSE: Record<Hold['reason'], string> = {
  gate: 'the service rate-limited this partner',
  window: 'this process is at its calls per second',
  lease: "this worker has no share of the partner's rate (it is not counted among the service queue's pollers yet)",
};

/** One attempt on the wire, as metrics see it. */
export interface RampAttempt {
  method: 'GET' | 'POST';
  /** The endpoint template, e.g. `/customer/detail` (ids travel in the query, never here). */
  endpoint: string;
  /** `2xx`, `4xx`, `429`, `5xx`, `network` (no HTTP answer), or `other` (any other status). */
  outcome: '2xx' | '4xx' | '429' | '5xx' | 'network' | 'other';
  /** The refusal's type when the answer was one (e.g. `RampInvalidParametersError`), else empty. */
  errorType: string;
  seconds: number;
}

/** The outcome class of an HTTP status. */
export function attemptOutcome(status: number): RampAttempt['outcome'] {
  if (status === 429) return '429';
  if (status >= 200 && status < 300) return '2xx';
  if (status >= 400 && status < 500) return '4xx';
  if (status >= 500 && status < 600) return '5xx';
  return 'other';
}

export type RequestBody = NonNullable<WireRequest['body']>;

export interface RampCall {
  method: 'GET' | 'POST';
  /** The endpoint path, e.g. `/customer/detail`, without the base URL's prefix. */
  path: string;
  /** Raw query string (see query.ts), without `?`. */
  query?: string;
  body?: RequestBody;
  generation?: ResponseGeneration;
}

export interface RampResponse {
  httpStatus: number;
  body: Record<string, unknown>;
}

const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/** Serialises a JSON body once; these bytes are hashed and sent on every attempt. */
export function jsonBody(value: unknown): RequestBody {
  return { bytes: Buffer.from(JSON.stringify(value), 'utf8'), contentType: 'application/json', hashed: true };
}

export class RampHttpClient {
  readonly assumptions: RampAssumptions;
  readonly clock: ServiceClock;
  readonly #transport: TransportSettings;
  readonly #sign: (canonical: string) => string;
  readonly #ownedAgent: Agent | undefined;
  readonly #basePath: string;
  readonly #retry: RetryPolicy;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #random: () => number;
  readonly #now: () => number;
  /** The pacer's clock: `pacerNow` (monotonic), or a test's own `now`, which then drives both. */
  readonly #pacerNow: () => number;
  readonly #onAttempt: ((attempt: RampAttempt) => void) | undefined;
  readonly #pacer: CallPacer;

  constructor(options: RampClientOptions) {
    const base = new URL(options.baseUrl);
    if (base.protocol !== 'https:' && base.protocol !== 'http:')
      throw new Error(`RAMP base URL must be http(s), got ${base.protocol}`);
    if (base.search !== '' || base.hash !== '') throw new Error('RAMP base URL must not carry a query or fragment');
    this.assumptions = resolveAssumptions(options.assumptions);
    this.#now = options.now ?? Date.now;
    this.#pacerNow = options.now ?? pacerNow;
    this.clock = new ServiceClock(this.#now, this.assumptions.clockSkewToleranceMs);
    // keep-alive: one pool of connections reused across calls; idle sockets are closed before a
    // typical server's own keep-alive timeout so we rarely write into a socket the server closed.
    this.#ownedAgent = options.dispatcher
      ? undefined
      : new Agent({ keepAliveTimeout: 4_000, keepAliveMaxTimeout: 60_000 });
    this.#transport = {
      dispatcher: options.dispatcher ?? (this.#ownedAgent as Agent),
      origin: base.origin,
      // URL.host drops the scheme's default port and keeps any other: exactly the Host we send.
      host: base.host,
      apiKey: options.apiKey,
      headersTimeoutMs: options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
      bodyTimeoutMs: options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
      onCanonicalString: options.onCanonicalString,
      newNonce: options.newNonce ?? randomUUID,
    };
    this.#sign = hmacSigner(options.apiSecret);
    this.#basePath = base.pathname.replace(/\/+$/, '');
    this.#retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#random = options.random ?? Math.random;
    // A client on a clock of its own (tests move it, or make waits instant) gets a pacer of its own:
    // a gate's times mean nothing on another clock.
    const ownClock = options.now !== undefined || options.sleep !== undefined;
    this.#onAttempt = options.onAttempt;
    this.#pacer = ownClock
      ? new CallPacer(options.maxCallsPerSecond)
      : pacerFor(`${base.origin}${this.#basePath} ${options.apiKey}`, options.maxCallsPerSecond);
  }

  /** The process's pacer for this client's account (call-pacing.ts). */
  get pacer(): CallPacer {
    return this.#pacer;
  }

  /**
   * Waits until the pacer lets an attempt start, and returns what frees its place once the attempt
   * has its answer or its error. A wait that would end past the deadline (or, at the gate, one longer
   * than the retry policy's longest wait) is not started: the call is refused unsent with the wait,
   * for the caller's own retry.
   */
  async #admit(call: RampCall, limits: ReturnType<typeof currentCallLimits>): Promise<() => void> {
    // Once the gate's wait has been waited, the attempt goes (a wait told is a wait done).
    let gateWaited = false;
    let leaseWaitedMs = 0;
    for (;;) {
      const hold = this.#pacer.tryStart(this.#pacerNow(), gateWaited);
      if (hold === undefined) {
        let ended = false;
        return () => {
          if (ended) return;
          ended = true;
          this.#pacer.ended(this.#pacerNow());
        };
      }
      const pastDeadline = limits?.deadlineAt !== undefined && Date.now() + hold.waitMs >= limits.deadlineAt;
      const shareLost = hold.reason === 'lease' && leaseWaitedMs + hold.waitMs > LEASE_WAIT_LIMIT_MS;
      if (pastDeadline || shareLost || (hold.reason === 'gate' && hold.waitMs > this.#retry.maxDelayMs)) {
        throw new RampRateLimitedError(`not sent: ${HELD_BECAUSE[hold.reason]}; retry in ${hold.waitMs} ms`, {
          method: call.method,
          path: call.path,
          retryAfterMs: hold.waitMs,
        });
      }
      await pause(hold.waitMs, this.#sleep, limits?.signal);
      if (hold.reason === 'gate') gateWaited = true;
      if (hold.reason === 'lease') leaseWaitedMs += hold.waitMs;
      const stopped = limitReached(limits, Date.now());
      if (stopped !== undefined)
        throw new RampConnectionError(`not sent: ${stopped}`, { method: call.method, path: call.path });
    }
  }

  /** Tells the hook of one attempt; a hook that throws never fails the call. */
  #report(call: RampCall, startedAt: number, outcome: RampAttempt['outcome'], errorType: string): void {
    if (!this.#onAttempt) return;
    try {
      this.#onAttempt({
        method: call.method,
        endpoint: call.path,
        outcome,
        errorType,
        seconds: (performance.now() - startedAt) / 1000,
      });
    } catch {
      // Metrics are never worth a failed call.
    }
  }

  /** Sends a call and returns the successful body; throws a RampError otherwise. */
  async send(call: RampCall): Promise<RampResponse> {
    const wire: WireRequest = {
      method: call.method,
      path: `${this.#basePath}${call.path}`,
      query: call.query ?? '',
      body: call.body,
    };
    const generation = call.generation ?? 'envelope';
    const limits = currentCallLimits();
    let skewRetryUsed = false;
    for (let attempt = 1; ; attempt += 1) {
      const mayRetry = attempt < this.#retry.maxAttempts;
      const stopped = limitReached(limits, Date.now());
      // Nothing was sent for this attempt: abandoning it leaves nothing to reconcile.
      if (stopped !== undefined)
        throw new RampConnectionError(`not sent: ${stopped}`, { method: call.method, path: call.path });
      // The attempt holds a place at the pacer until its answer or error (a second beyond, call-pacing.ts).
      const release = await this.#admit(call, limits);
      if (call.method === 'POST') {
        try {
          await limits?.beforePost?.();
        } catch (error) {
          release();
          throw error;
        }
      }
      let response: WireResponse;
      const startedAt = performance.now();
      const sentAt = this.#pacerNow();
      try {
        const now = Date.now();
        response = await sendSignedAttempt(this.#transport, {
          request: wire,
          sign: this.#sign,
          timestampSeconds: this.clock.nowSeconds(),
          signal: attemptSignal(limits, now),
          ...(limits?.deadlineAt !== undefined ? { timeLeftMs: Math.max(1, limits.deadlineAt - now) } : {}),
        });
      } catch (error) {
        release();
        this.#report(call, startedAt, 'network', '');
        const neverLeft = requestNeverLeft(error);
        if (call.method === 'POST' && !neverLeft) {
          throw new RampOutcomeUnknownError(
            `no answer after the request may have reached the service (${describeTransportError(error)}); look the record up before resending`,
            { method: call.method, path: call.path, cause: error },
          );
        }
        const ended = limitReached(limits, Date.now());
        if (ended !== undefined)
          throw new RampConnectionError(`${ended}: ${describeTransportError(error)}`, {
            method: call.method,
            path: call.path,
            cause: error,
          });
        if (mayRetry) {
          await pause(backoffDelayMs(this.#retry, attempt, this.#random), this.#sleep, limits?.signal);
          continue;
        }
        throw new RampConnectionError(
          `${neverLeft ? 'the request could not be sent' : 'no answer'} after ${attempt} attempt(s): ${describeTransportError(error)}`,
          { method: call.method, path: call.path, cause: error },
        );
      }

      release();
      const clockWasOff = this.clock.observeServiceDate(response.headers.date);
      if (response.status === 429) {
        // Refused for the partner's rate, before the service acted (a POST too): every call of the
        // process waits out the Retry-After at the gate, this one included.
        const waitMs = retryAfterMs(response.headers['retry-after'], this.#now()) ?? DEFAULT_RATE_LIMIT_WAIT_MS;
        this.#pacer.closeGate(waitMs, this.#pacerNow());
        this.#pacer.noteRefused(sentAt);
        this.#report(call, startedAt, '429', 'RampRateLimitedError');
        const refused = new RampRateLimitedError(`rate limited; retry in ${waitMs} ms`, {
          method: call.method,
          path: call.path,
          httpStatus: 429,
          retryAfterMs: waitMs,
        });
        // An activity's retry (after the wait, through the task queue's rate limit) fits better than one here.
        if (limits !== undefined || call.method === 'POST' || !mayRetry) throw refused;
        continue; // the next attempt waits at the gate (#admit), or is refused if the wait is too long
      }
      const outcome = interpretResponse({
        method: call.method,
        path: call.path,
        httpStatus: response.status,
        bodyText: response.bodyText,
        generation,
        assumptions: this.assumptions,
      });
      this.#report(call, startedAt, attemptOutcome(response.status), outcome.ok ? '' : outcome.error.name);
      if (outcome.ok) return { httpStatus: response.status, body: outcome.body };

      if (outcome.error instanceof RampUnauthorisedError && clockWasOff && !skewRetryUsed) {
        // Not counted as an attempt: the refusal was our clock's doing, and it is now corrected.
        skewRetryUsed = true;
        attempt -= 1;
        continue;
      }
      if (!outcome.transient) throw outcome.error;
      if (call.method === 'POST') throw this.#postTransientFailure(call, outcome.error);
      const wait = this.#transientWaitMs(response, attempt);
      if (!mayRetry || wait === undefined) throw outcome.error;
      // A wait that would end past the deadline is not started: the caller's own retry fits better.
      if (limits?.deadlineAt !== undefined && Date.now() + wait >= limits.deadlineAt) throw outcome.error;
      await pause(wait, this.#sleep, limits?.signal);
    }
  }

  /** Sends a new-generation call and returns its `data`, checked against the schema. */
  async request<S extends z.ZodType>(call: RampCall, dataSchema: S): Promise<z.infer<S>> {
    const response = await this.send(call);
    return parseResponseBody(dataSchema, response.body.data, {
      method: call.method,
      path: call.path,
      httpStatus: response.httpStatus,
    });
  }

  /** Closes the connection pool the client created (an injected dispatcher is left to its owner). */
  async close(): Promise<void> {
    await this.#ownedAgent?.close();
  }

  /**
   * A POST's 429 says the request was refused, not processed, so it surfaces as the retryable
   * RampHttpError. A 5xx may have come after the service acted: outcome unknown.
   */
  #postTransientFailure(call: RampCall, error: RampError): RampError {
    if (error.httpStatus === 429) return error;
    return new RampOutcomeUnknownError(
      `the service answered HTTP ${error.httpStatus} and may have acted on the request; look the record up before resending`,
      {
        method: call.method,
        path: call.path,
        httpStatus: error.httpStatus,
        serviceStatus: error.serviceStatus,
        serviceMessage: error.serviceMessage,
        cause: error,
      },
    );
  }

  /** Retry-After when the service gives one (undefined if longer than we are willing to wait), else backoff. */
  #transientWaitMs(response: WireResponse, attempt: number): number | undefined {
    const asked = retryAfterMs(response.headers['retry-after'], this.#now());
    if (asked === undefined) return backoffDelayMs(this.#retry, attempt, this.#random);
    return asked <= this.#retry.maxDelayMs ? asked : undefined;
  }
}
