/**
 * Injected faults: the next N responses of a path, for one partner, fail in a chosen way, so a
 * client's retry and outcome-unknown handling can be exercised on demand.
 * - `HTTP_5XX`: answer a 5xx (default 503) with a plain-text body, as a gateway would;
 * - `DELAY`: hold the response for `delayMs`, then answer normally (for client timeouts);
 * - `RESET`: reset the TCP connection without answering;
 * - `UNAUTHORISED`: refuse the call as the service refuses a bad signature (422 UNAUTHORISED), as after
 *   a key rotation the caller has not caught up with;
 * - `REFUSED`: refuse the call as the service refuses an operation it will not do (422 FAILED, with a
 *   message saying it was injected), without acting on it.
 * The path `*` stands for every path but the sandbox's own tools, for faults that hit every call.
 * With `afterHandling: true` the request is processed first and only its response is lost: the
 * case where a POST took effect but the client cannot know it.
 * With `externalId` only calls naming that customer (the JSON body's `externalId`, or the query's)
 * meet the fault, so one customer among many can be refused while the others are served; with
 * `customerId` only calls naming the service's id for a customer (the query's `customerId`, the JSON
 * body's, or its `from.customerId`, as an autoramp flow's create names it), for the calls made once the
 * customer exists. A call no rule of its own path takes meets the every-path faults as any other.
 */
export type FaultKind = 'HTTP_5XX' | 'DELAY' | 'RESET' | 'UNAUTHORISED' | 'REFUSED';

/** The path of a rule that applies to every path but the sandbox's own tools. */
export const EVERY_PATH = '*';

export interface FaultRule {
  kind: FaultKind;
  remaining: number;
  statusCode: number;
  delayMs: number;
  afterHandling: boolean;
  /** Only calls signed with this key meet the fault (a partner may hold several key pairs); any key when undefined. */
  apiKey?: string;
  /** Only calls naming this customer's externalId meet the fault; any call when undefined. */
  externalId?: string;
  /** Only calls naming this customer's id at the service meet the fault; any call when undefined. */
  customerId?: string;
}

/** What a call is, for the rules that pick their calls. */
export interface FaultedCall {
  apiKey?: string;
  /** The externalId the call names (its JSON body's or its query's), if any. */
  externalId?: string;
  /** The service's customer id the call names (its query's, its JSON body's or the body's `from`), if any. */
  customerId?: string;
}

/**
 * A partner's rate limit, as a service with unpublished limits may enforce one: a call that arrives
 * when `callsPerSecond` calls of the partner already arrived in the last second (those refused
 * counted too: each one reached the service) is refused with HTTP 429 and
 * `Retry-After: retryAfterSeconds`, before it is acted on. So the service serves at most
 * `callsPerSecond` a second, and a client that keeps calling early keeps being refused. The
 * sandbox's own tools are not counted.
 */
export interface RateLimitRule {
  callsPerSecond: number;
  retryAfterSeconds: number;
}

export class FaultInjector {
  private readonly rules = new Map<string, FaultRule[]>();
  private readonly rateLimits = new Map<string, { rule: RateLimitRule; arrivals: number[] }>();

  /** Sets a partner's rate limit; undefined lifts it. */
  limitRate(partnerId: string, rule: RateLimitRule | undefined): void {
    if (rule === undefined) this.rateLimits.delete(partnerId);
    else this.rateLimits.set(partnerId, { rule, arrivals: [] });
  }

  rateLimitOf(partnerId: string): RateLimitRule | undefined {
    return this.rateLimits.get(partnerId)?.rule;
  }

  /** Counts the call; the Retry-After seconds when it is over the partner's rate, undefined when it is served. */
  overRate(partnerId: string, path: string, now: number): number | undefined {
    const limit = this.rateLimits.get(partnerId);
    if (limit === undefined || path.startsWith('/sandbox/')) return undefined;
    while (limit.arrivals.length > 0 && limit.arrivals[0]! <= now - 1_000) limit.arrivals.shift();
    const over = limit.arrivals.length >= limit.rule.callsPerSecond;
    limit.arrivals.push(now);
    return over ? limit.rule.retryAfterSeconds : undefined;
  }

  private key(partnerId: string, path: string): string {
    return `${partnerId} ${path}`;
  }

  /**
   * Adds a rule; `count` 0 clears the path's rules instead (with `externalId` or `customerId`, only
   * those naming that customer: one customer's refusal lifted, the others' kept).
   */
  add(partnerId: string, path: string, rule: FaultRule): void {
    const key = this.key(partnerId, path);
    if (rule.remaining === 0) {
      const oneCustomer = rule.externalId !== undefined || rule.customerId !== undefined;
      const kept = !oneCustomer
        ? []
        : (this.rules.get(key) ?? []).filter(
            (candidate) => candidate.externalId !== rule.externalId || candidate.customerId !== rule.customerId,
          );
      if (kept.length === 0) this.rules.delete(key);
      else this.rules.set(key, kept);
      return;
    }
    this.rules.set(key, [...(this.rules.get(key) ?? []), rule]);
  }

  /**
   * Takes one use of the first rule for this call and phase, if any: the path's own rules first, then
   * the every-path ones (never for the sandbox's own tools).
   */
  take(partnerId: string, path: string, afterHandling: boolean, call: FaultedCall = {}): FaultRule | undefined {
    const keys = [
      this.key(partnerId, path),
      ...(path.startsWith('/sandbox/') ? [] : [this.key(partnerId, EVERY_PATH)]),
    ];
    for (const key of keys) {
      const rules = this.rules.get(key);
      const rule = rules?.find(
        (candidate) =>
          candidate.afterHandling === afterHandling &&
          (candidate.apiKey === undefined || candidate.apiKey === call.apiKey) &&
          (candidate.externalId === undefined || candidate.externalId === call.externalId) &&
          (candidate.customerId === undefined || candidate.customerId === call.customerId),
      );
      if (rules === undefined || rule === undefined) continue;
      rule.remaining -= 1;
      if (rule.remaining <= 0) {
        rules.splice(rules.indexOf(rule), 1);
        if (rules.length === 0) this.rules.delete(key);
      }
      return rule;
    }
    return undefined;
  }

  pending(partnerId: string): { path: string; rule: FaultRule }[] {
    const prefix = `${partnerId} `;
    return [...this.rules.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .flatMap(([key, rules]) => rules.map((rule) => ({ path: key.slice(prefix.length), rule })));
  }
}
