/**
 * Counts the sandbox's API requests from its own request log (one line per request, sandbox/http/server.ts),
 * so a benchmark knows how many calls the service received without a proxy in the path.
 */
import pino, { type Logger } from 'pino';

export class SandboxRequestLog {
  /** Requests answered, by path (sandbox-only simulation endpoints included). */
  readonly byPath = new Map<string, number>();
  readonly logger: Logger;

  constructor() {
    this.logger = pino({ level: 'info' }, { write: (line: string) => this.record(line) });
  }

  private record(line: string): void {
    if (!line.includes('"msg":"request"')) return;
    const { path } = JSON.parse(line) as { path?: string };
    const key = path ?? '?';
    this.byPath.set(key, (this.byPath.get(key) ?? 0) + 1);
  }

  /**
   * Requests to the partner API, leaving out the sandbox's own simulation and control endpoints and
   * the simulated deposits (POST /deposit/mock: the customer's money, not a call rampflow makes).
   */
  apiRequests(): number {
    let total = 0;
    for (const [path, count] of this.byPath) if (!path.startsWith('/sandbox/') && path !== '/deposit/mock') total += count;
    return total;
  }
}
