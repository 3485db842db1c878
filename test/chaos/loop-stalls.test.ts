/**
 * The rate row counts a breach only on calls that certainly arrived within one second: a stall of the
 * process that stamps the service's arrivals can crowd calls of two seconds into one as stamped.
 */
import { describe, expect, it } from 'vitest';
import { busiestSecond, certainBusiestSecond, earliestArrival, LoopStalls } from '../../chaos/loop-stalls';
import { rateHeld } from '../../chaos/invariants';

const T = 1_700_000_000_000;
/** `count` calls spread evenly over [from, from + spanMs). */
const spread = (from: number, count: number, spanMs: number): number[] =>
  Array.from({ length: count }, (_, index) => from + Math.floor((index * spanMs) / count));

const requests = (stamps: number[]) =>
  stamps.map((receivedAt) => ({ path: '/deposit/detail', statusCode: 200, receivedAt }));
const record = (stamps: number[], stalls: { from: number; to: number }[]) => ({
  serviceRequests: requests(stamps),
  stalls,
  callsPerSecond: 20,
  workersBetween: () => 3,
});

describe('the service rate as the sandbox stamped it', () => {
  it('breaks on 21 calls within one second when nothing stalled', () => {
    const stamps = spread(T, 21, 900);
    expect(busiestSecond(stamps).calls).toBe(21);
    expect(rateHeld(record(stamps, []))).toEqual([
      `21 calls in the second from ${new Date(T).toISOString()}, with up to 3 worker processes running`,
    ]);
  });

  it('holds when a stall crowded two seconds of calls into one as stamped', () => {
    // The loop was held from T to T + 1,500: the 15 calls that arrived meanwhile were all stamped at its
    // end, beside the 10 that came in the second after it. 25 as stamped; only the 10 certainly within one second.
    const stall = { from: T, to: T + 1_500 };
    const stamps = [...Array.from({ length: 15 }, (_, index) => stall.to + index), ...spread(T + 1_600, 10, 800)];
    expect(busiestSecond(stamps).calls).toBe(25);
    expect(earliestArrival(stall.to + 3, [stall])).toBe(stall.from);
    expect(earliestArrival(T + 1_700, [stall])).toBe(T + 1_700);
    expect(rateHeld(record(stamps, [stall]))).toEqual([]);
  });

  it('still breaks when more calls than the limit came after the stall had ended', () => {
    const stall = { from: T, to: T + 1_500 };
    const stamps = [...Array.from({ length: 5 }, (_, index) => stall.to + index), ...spread(T + 2_000, 21, 900)];
    expect(
      certainBusiestSecond(stamps.map((stampedAt) => ({ stampedAt, earliest: earliestArrival(stampedAt, [stall]) })))
        .calls,
    ).toBe(21);
    expect(rateHeld(record(stamps, [stall]))).toHaveLength(1);
  });

  it('notes a real stall of its own process', async () => {
    const stalls = new LoopStalls();
    stalls.start();
    await new Promise((wake) => setTimeout(wake, 60));
    const blockedFrom = Date.now();
    while (Date.now() - blockedFrom < 300) {
      // The loop held, as the run's other work holds it on a starved machine.
    }
    await new Promise((wake) => setTimeout(wake, 60));
    stalls.stop();
    // (Other stalls may show on a loaded machine; this one must.)
    expect(stalls.stalls.some((stall) => stall.from <= blockedFrom && stall.to - stall.from >= 300)).toBe(true);
  });
});
