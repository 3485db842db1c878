/**
 * One HTTP delivery attempt: `POST {event, payload}` as JSON. Only HTTP 200 within the acknowledgement
 * timeout counts (interface: "Expected response: HTTP 200 within 30 seconds"); a redirect is a
 * failure and is not followed. The service's deliveries carry no signature header (interface:
 * "Signing of deliveries: not shown"), so neither do the sandbox's.
 */
import { Agent, request } from 'undici';

export interface AttemptResult {
  delivered: boolean;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
}

export class HttpDeliverer {
  private readonly agent: Agent;

  constructor(private readonly ackTimeoutMs: number) {
    this.agent = new Agent({ headersTimeout: ackTimeoutMs, bodyTimeout: ackTimeoutMs, connectTimeout: ackTimeoutMs });
  }

  async post(url: string, body: string): Promise<AttemptResult> {
    const started = performance.now();
    const elapsed = (): number => Math.round(performance.now() - started);
    try {
      const response = await request(url, {
        method: 'POST',
        dispatcher: this.agent,
        headers: { 'content-type': 'application/json', 'user-agent': 'rampflow-sandbox' },
        body,
        signal: AbortSignal.timeout(this.ackTimeoutMs),
      });
      // The body is not read for meaning, but it must be drained to free the connection.
      await response.body.dump();
      const delivered = response.statusCode === 200;
      return {
        delivered,
        httpStatus: response.statusCode,
        error: delivered ? null : `HTTP ${response.statusCode}: only 200 acknowledges a delivery`,
        durationMs: elapsed(),
      };
    } catch (error) {
      const timedOut =
        error instanceof Error && (error.name === 'TimeoutError' || /timeout/i.test(error.name + error.message));
      return {
        delivered: false,
        httpStatus: null,
        error: timedOut
          ? `no acknowledgement within ${this.ackTimeoutMs} ms`
          : `delivery failed: ${error instanceof Error ? error.message : String(error)}`,
        durationMs: elapsed(),
      };
    }
  }

  async close(): Promise<void> {
    await this.agent.destroy();
  }
}
