/**
 * An open-loop load generator for the receiver over loopback: POSTs at a fixed rate whatever the
 * answers (as a service delivering events would), each body from `body(i)`, and records every
 * request's latency. Bounded: `rate × seconds` requests, at most `maxInFlight` at once (beyond that
 * a request waits its turn and the wait counts in its latency, so overload shows).
 */
import { Agent, request } from 'undici';

export interface LoadResult {
  sent: number;
  ok: number;
  failed: number;
  /** Send-time to answer, in ms, of the 200s. */
  latenciesMs: number[];
  /** Achieved rate of acknowledged requests over the run. */
  achievedPerSecond: number;
}

export async function openLoopLoad(url: string, rate: number, seconds: number, body: (i: number) => string, maxInFlight = 256): Promise<LoadResult> {
  const agent = new Agent({ connections: maxInFlight, keepAliveTimeout: 30_000 });
  const total = Math.round(rate * seconds);
  const latenciesMs: number[] = [];
  let ok = 0;
  let failed = 0;
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  const started = performance.now();
  const send = async (i: number, dueAt: number): Promise<void> => {
    if (inFlight >= maxInFlight) await new Promise<void>((go) => waiting.push(go));
    inFlight += 1;
    try {
      const response = await request(url, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: body(i) });
      await response.body.dump();
      if (response.statusCode === 200) {
        ok += 1;
        latenciesMs.push(performance.now() - dueAt);
      } else failed += 1;
    } catch {
      failed += 1;
    } finally {
      inFlight -= 1;
      waiting.shift()?.();
    }
  };
  const requests: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const dueAt = started + (i * 1000) / rate;
    const wait = dueAt - performance.now();
    if (wait > 1) await new Promise((wake) => setTimeout(wake, wait));
    requests.push(send(i, dueAt));
  }
  await Promise.all(requests);
  const elapsedS = (performance.now() - started) / 1000;
  await agent.close();
  return { sent: total, ok, failed, latenciesMs, achievedPerSecond: ok / elapsedS };
}
