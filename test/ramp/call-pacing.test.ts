/**
 * The process's pacer (ramp/call-pacing.ts): the gate a 429 closes for every call of the process,
 * the places that hold a process to its calls per second, and what an activity makes of a 429 (activities/failures.ts).
 */
import { ApplicationFailure } from '@temporalio/common';
import { afterEach, describe, expect, it } from 'vitest';
import { toTemporalFailure } from '../../activities/failures';
import { CallPacer, LEASE_WAIT_MS } from '../../ramp/call-pacing';
import { withCallLimits } from '../../ramp/call-limits';
import { RampRateLimitedError } from '../../ramp/errors';
import { RampHttpClient } from '../../ramp/http-client';
import { startSignedServer, success, type SignedServer } from './support/signed-server';
import { caught } from './support/caught';

const SECRET = 'loopback-secret-pacing';
const servers: SignedServer[] = [];
const clients: RampHttpClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A client on real time, sharing the process's pacer of its account like a worker's. */
function realClient(baseUrl: string, apiKey: string, maxCallsPerSecond?: number): RampHttpClient {
  const client = new RampHttpClient({
    baseUrl,
    apiKey,
    apiSecret: SECRET,
    ...(maxCallsPerSecond !== undefined ? { maxCallsPerSecond } : {}),
  });
  clients.push(client);
  return client;
}

describe('the pacer', () => {
  it('gives a call its place from its start until a second after its answer, so no more than maxCallsPerSecond arrive in any second', () => {
    const pacer = new CallPacer(3);
    expect([0, 10, 20].map((at) => pacer.tryStart(at))).toEqual([undefined, undefined, undefined]);
    // All three still out: none frees its place before a second from now.
    expect(pacer.tryStart(30)).toEqual({ waitMs: 1_000, reason: 'window' });
    pacer.ended(400);
    expect(pacer.tryStart(500)).toEqual({ waitMs: 900, reason: 'window' });
    expect(pacer.tryStart(1_400)).toBeUndefined();
    expect(pacer.tryStart(1_401)).toEqual({ waitMs: 1_000, reason: 'window' });
    // A slow answer keeps its place longer than a start-time window would.
    pacer.ended(2_600);
    pacer.ended(2_600);
    expect(pacer.tryStart(3_000)).toEqual({ waitMs: 600, reason: 'window' });
    expect(pacer.tryStart(3_600)).toBeUndefined();
  });

  it('keeps to its lease while it lasts, and starts nothing once it has run out', () => {
    const pacer = new CallPacer(6);
    pacer.lease({ places: 2, validUntil: 3_000 });
    expect([0, 10].map((at) => pacer.tryStart(at))).toEqual([undefined, undefined]);
    expect(pacer.tryStart(20)).toEqual({ waitMs: 1_000, reason: 'window' });
    pacer.ended(100);
    pacer.ended(100);
    expect(pacer.tryStart(1_100)).toBeUndefined();
    pacer.ended(1_200);
    // Past its end, no place, however many are free.
    expect(pacer.tryStart(3_001)).toEqual({ waitMs: LEASE_WAIT_MS, reason: 'lease' });
    // A lease never gives more than the client's own limit, and a share of none gives nothing.
    pacer.lease({ places: 10, validUntil: 10_000 });
    expect(pacer.placesAt(4_000)).toBe(6);
    pacer.lease({ places: 0, validUntil: 10_000 });
    expect(pacer.tryStart(4_000)).toEqual({ waitMs: LEASE_WAIT_MS, reason: 'lease' });
  });

  it('remembers when the latest refused call had started, and tells its listeners', () => {
    const pacer = new CallPacer();
    let told = 0;
    const stop = pacer.onRefused(() => (told += 1));
    pacer.noteRefused(500);
    pacer.noteRefused(200);
    expect(pacer.lastRefusedStartedAt).toBe(500);
    stop();
    pacer.noteRefused(900);
    expect([told, pacer.lastRefusedStartedAt]).toEqual([2, 900]);
  });

  it('spaces single calls below one a second', () => {
    const pacer = new CallPacer(0.5);
    expect(pacer.tryStart(0)).toBeUndefined();
    expect(pacer.tryStart(10)).toEqual({ waitMs: 2_000, reason: 'window' });
    pacer.ended(100);
    expect(pacer.tryStart(2_099)).toEqual({ waitMs: 1, reason: 'window' });
    expect(pacer.tryStart(2_100)).toBeUndefined();
  });

  it('holds every call while the gate is closed, and never shortens a wait', () => {
    const pacer = new CallPacer();
    pacer.closeGate(2_000, 0);
    pacer.closeGate(500, 100);
    expect(pacer.tryStart(1_000)).toEqual({ waitMs: 1_000, reason: 'gate' });
    expect(pacer.tryStart(1_000, true)).toBeUndefined();
    expect(pacer.tryStart(2_000)).toBeUndefined();
  });

  it('keeps the smallest limit asked for', () => {
    const pacer = new CallPacer(10);
    pacer.limitTo(4);
    pacer.limitTo(undefined);
    pacer.limitTo(8);
    expect(pacer.maxCallsPerSecond).toBe(4);
  });
});

describe('a 429 under an activity', () => {
  it("fails at once with the Retry-After, and holds the process's other calls of that account at the gate", async () => {
    const server = await startSignedServer(SECRET, (_request, index) =>
      index === 0 ? { status: 429, headers: { 'retry-after': '30' }, text: 'Too Many Requests' } : success([]),
    );
    servers.push(server);
    const worker = realClient(server.url, 'gate-key');
    const limits = { deadlineAt: Date.now() + 10_000 };
    const refused = await caught(withCallLimits(limits, () => worker.send({ method: 'GET', path: '/balance' })));
    expect(refused).toBeInstanceOf(RampRateLimitedError);
    expect(refused).toMatchObject({ httpStatus: 429, retryable: true });
    expect((refused as RampRateLimitedError).retryAfterMs).toBe(30_000);

    // Another client of the same account in the process: held back unsent, with what is left of the wait.
    const other = realClient(server.url, 'gate-key');
    const held = await caught(withCallLimits(limits, () => other.send({ method: 'POST', path: '/customer/create' })));
    expect(held).toBeInstanceOf(RampRateLimitedError);
    expect(held.message).toContain('not sent');
    expect((held as RampRateLimitedError).retryAfterMs).toBeGreaterThan(29_000);
    expect(server.requests).toHaveLength(1);

    // Another account is not held.
    await realClient(server.url, 'other-key').send({ method: 'GET', path: '/balance' });
    expect(server.requests).toHaveLength(2);
  });

  it('becomes a retryable RateLimited failure whose next retry waits the Retry-After', () => {
    const failure = toTemporalFailure(
      new RampRateLimitedError('rate limited', { method: 'GET', path: '/balance', retryAfterMs: 7_000 }),
    );
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'RateLimited', nonRetryable: false, nextRetryDelay: 7_000 });
  });

  it('paces a process to its calls per second, retries included', async () => {
    // Every fourth answer is a 503, which a GET retries: the retry takes a place like any call. Which
    // call gets which answer depends on arrival order, so one may meet several 503s: attempts enough.
    const arrivals: number[] = [];
    const server = await startSignedServer(SECRET, (_request, index) => {
      arrivals.push(Date.now());
      return index % 4 === 3 ? { status: 503, text: 'Service Unavailable' } : success([]);
    });
    servers.push(server);
    const client = new RampHttpClient({
      baseUrl: server.url,
      apiKey: 'window-key',
      apiSecret: SECRET,
      maxCallsPerSecond: 5,
      retry: { baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 10 },
    });
    clients.push(client);
    const started = Date.now();
    await Promise.all(Array.from({ length: 10 }, () => client.send({ method: 'GET', path: '/balance' })));
    // Thirteen attempts (three retried), five a second at most: into the third second.
    expect(server.requests.length).toBeGreaterThan(10);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    for (const at of arrivals)
      expect(arrivals.filter((other) => other >= at && other < at + 1_000).length).toBeLessThanOrEqual(5);
  });
});
