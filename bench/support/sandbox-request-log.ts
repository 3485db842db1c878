/**
 * Counts the sandbox's API requests from its own request log (one line per request, sandbox/http/server.ts),
 * so a benchmark knows how many calls the service received without a proxy in the path.
 */
import pino, { type Logger } from 'pino';

export class SandboxRequestLog {
  /** Requests answered, by path (sandbox-only simulation endpoints included). */
  readonly byPath = new Map<string, number>();
  /** Webhook delivery attempts (the sandbox's own log line for each) and the time they took in all, ms. */
  readonly deliveries = { attempts: 0, totalMs: 0 };
  readonly logger: Logger;

  constructor() {
    this.logger = pino({ level: 'info' }, { write: (line: string) => this.record(line) });
  }

  /** Partner API requests (as apiRequests counts them) the service refused with 429 for the partner's rate. */
  #refused = 0;
  /** When each partner API request arrived (epoch ms), refused ones included. */
  readonly #arrivals: number[] = [];
  /** When each partner API request the service did not refuse for the rate arrived. */
  readonly #accepted: number[] = [];

  private record(line: string): void {
    if (line.includes('"msg":"event delivery attempt"')) {
      const { latencyMs } = JSON.parse(line) as { latencyMs?: number };
      this.deliveries.attempts += 1;
      this.deliveries.totalMs += latencyMs ?? 0;
      return;
    }
    if (!line.includes('"msg":"request"')) return;
    const { path, statusCode, receivedAt } = JSON.parse(line) as {
      path?: string;
      statusCode?: number;
      receivedAt?: number;
    };
    const key = path ?? '?';
    this.byPath.set(key, (this.byPath.get(key) ?? 0) + 1);
    if (!isApiPath(key)) return;
    if (statusCode === 429) this.#refused += 1;
    if (receivedAt !== undefined) this.#arrivals.push(receivedAt);
    if (receivedAt !== undefined && statusCode !== 429) this.#accepted.push(receivedAt);
  }

  /** The most partner API requests accepted (not refused with 429) within any `windowMs` (sliding). */
  busiestAccepted(windowMs: number): number {
    return busiest(this.#accepted, windowMs);
  }

  /** Partner API requests refused with 429. */
  refused(): number {
    return this.#refused;
  }

  /** The most partner API requests that arrived within any one second (sliding), refused ones included. */
  busiestSecond(): number {
    return busiest(this.#arrivals, 1_000);
  }

  /**
   * Requests to the partner API, leaving out the sandbox's own simulation and control endpoints and
   * the simulated deposits (POST /deposit/mock: the customer's money, not a call rampflow makes).
   */
  apiRequests(): number {
    let total = 0;
    for (const [path, count] of this.byPath) if (isApiPath(path)) total += count;
    return total;
  }
}

/** A call rampflow makes: not the sandbox's simulation and control endpoints, nor a simulated deposit. */
function isApiPath(path: string): boolean {
  return !path.startsWith('/sandbox/') && path !== '/deposit/mock';
}

/** The most of `times` within any `windowMs` (sliding). */
function busiest(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; last < sorted.length; last++) {
    while (sorted[last]! - sorted[first]! >= windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}
