/**
 * When the run's own process stalled, so the rate row can tell what the service's stamps prove.
 *
 * The sandbox runs in the run's process and stamps a request's arrival when its event loop gets to it
 * (sandbox/http/server.ts, `onRequest`). A loop held up for a while by the run's other work (customers,
 * the forger, the partner API) stamps everything that arrived meanwhile at its end: calls a second and
 * more apart can then carry stamps within one second. The long run on a starved machine counted 21
 * calls in one second against 20 so (docs/guarantees/chaos.md). A ticker notes each stall; a request
 * stamped during or just after one may have arrived as early as the stall's start.
 */

/** The ticker's period. */
const TICK_MS = 20;
/** A tick this much later than due is a stall: anything shorter is timer jitter, far below a second. */
const STALL_MS = 100;
/** How long after a stall's end a stamp may still belong to it: the loop runs its timers before its sockets, or after. */
const AFTER_STALL_MS = 50;

export interface Stall {
  /** The last tick before it (epoch ms). */
  from: number;
  /** The tick that ended it. */
  to: number;
}

export class LoopStalls {
  readonly stalls: Stall[] = [];
  #timer: NodeJS.Timeout | undefined;

  start(): void {
    let last = Date.now();
    this.#timer = setInterval(() => {
      const now = Date.now();
      if (now - last - TICK_MS >= STALL_MS) this.stalls.push({ from: last, to: now });
      last = now;
    }, TICK_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

/** The earliest a request stamped at `stampedAt` may have arrived: the start of a stall it was stamped in or just after. */
export function earliestArrival(stampedAt: number, stalls: readonly Stall[]): number {
  let earliest = stampedAt;
  for (const stall of stalls)
    if (stall.from < stampedAt && stampedAt <= stall.to + AFTER_STALL_MS) earliest = Math.min(earliest, stall.from);
  return earliest;
}

/** The most calls whose arrivals, as stamped, fall within one second, and the second's start. */
export function busiestSecond(stamps: readonly number[]): { calls: number; from: number } {
  const times = [...stamps].sort((a, b) => a - b);
  let calls = 0;
  let from = 0;
  for (let first = 0, last = 0; last < times.length; last += 1) {
    while (times[last]! - times[first]! >= 1_000) first += 1;
    if (last - first + 1 > calls) [calls, from] = [last - first + 1, times[first]!];
  }
  return { calls, from };
}

/**
 * The most calls that certainly arrived within one second: calls each known to have arrived between
 * its earliest arrival and its stamp, all of those spans inside one second. Equal to `busiestSecond`
 * when nothing stalled; never more.
 */
export function certainBusiestSecond(arrivals: readonly { earliest: number; stampedAt: number }[]): {
  calls: number;
  from: number;
} {
  const byEarliest = [...arrivals].sort((a, b) => a.earliest - b.earliest);
  let calls = 0;
  let from = 0;
  for (let first = 0; first < byEarliest.length; first += 1) {
    const start = byEarliest[first]!.earliest;
    let inside = 0;
    for (let next = first; next < byEarliest.length && byEarliest[next]!.earliest < start + 1_000; next += 1)
      if (byEarliest[next]!.stampedAt < start + 1_000) inside += 1;
    if (inside > calls) [calls, from] = [inside, start];
  }
  return { calls, from };
}
