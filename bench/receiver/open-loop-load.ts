/**
 * An open-loop load generator: starts one call at a fixed rate whatever the answers (as a service
 * delivering events would), and records every call's latency from its scheduled start. Bounded:
 * `rate × seconds` calls, at most `maxInFlight` at once (beyond that a call waits its turn and the
 * wait counts in its latency, so overload shows). `openLoopLoad` POSTs to the receiver over loopback;
 * `openLoop` runs any call (the floor's bare Temporal signals).
 */
import { Agent, request } from 'undici';

export interface LoadResult {
  sent: number;
  ok: number;
  failed: number;
  /** Scheduled start to answer, in ms, of the calls that succeeded. */
  latenciesMs: number[];
  /** Achieved rate of successful calls over the run. */
  achievedPerSecond: number;
}

/** Runs `call(i)` `rate × seconds` times at `rate` a second; a call succeeds when it resolves true. */
export async function openLoop(
  rate: number,
  seconds: number,
  call: (i: number) => Promise<boolean>,
  maxInFlight = 256,
): Promise<LoadResult> {
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
      if (await call(i)) {
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
  const calls: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const dueAt = started + (i * 1000) / rate;
    const wait = dueAt - performance.now();
    if (wait > 1) await new Promise((wake) => setTimeout(wake, wait));
    calls.push(send(i, dueAt));
  }
  await Promise.all(calls);
  const elapsedS = (performance.now() - started) / 1000;
  return { sent: total, ok, failed, latenciesMs, achievedPerSecond: ok / elapsedS };
}

/** POSTs `body(i)` to the receiver at `rate` a second; a 200 is a success. */
export async function openLoopLoad(
  url: string,
  rate: number,
  seconds: number,
  body: (i: number) => string,
  maxInFlight = 256,
): Promise<LoadResult> {
  const agent = new Agent({ connections: maxInFlight, keepAliveTimeout: 30_000 });
  try {
    return await openLoop(
      rate,
      seconds,
      async (i) => {
        const response = await request(url, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json' },
          body: body(i),
        });
        await response.body.dump();
        return response.statusCode === 200;
      },
      maxInFlight,
    );
  } finally {
    await agent.close();
  }
}
