/**
 * Calls under limits (ramp/call-limits.ts) against a loopback server that holds every request: the
 * signal aborts the request on the wire, the deadline ends an attempt however long its own timeouts
 * are, and the caller hears of each POST before it leaves.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { withCallLimits } from '../../ramp/call-limits';
import { RampConnectionError, RampOutcomeUnknownError } from '../../ramp/errors';
import { RampHttpClient, jsonBody } from '../../ramp/http-client';

interface HoldingServer {
  url: string;
  /** Requests received (each is held: never answered). */
  arrived: string[];
  /** Requests whose connection the client closed while they were held. */
  abandoned: string[];
  close(): Promise<void>;
}

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((thing) => thing.close()));
});

async function holdingServer(): Promise<HoldingServer> {
  const arrived: string[] = [];
  const abandoned: string[] = [];
  const server: Server = createServer((request, response) => {
    const name = `${request.method} ${request.url}`;
    request.resume();
    arrived.push(name);
    response.on('close', () => {
      if (!response.writableFinished) abandoned.push(name);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const held: HoldingServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrived,
    abandoned,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  opened.push(held);
  return held;
}

function clientFor(url: string): RampHttpClient {
  // Timeouts far longer than any test: only the limits can end these calls.
  const client = new RampHttpClient({
    baseUrl: url,
    apiKey: 'key-1',
    apiSecret: 'secret-1',
    headersTimeoutMs: 60_000,
    bodyTimeoutMs: 60_000,
    sleep: async () => undefined,
  });
  opened.push(client);
  return client;
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the condition never held');
    await new Promise((wake) => setTimeout(wake, 5));
  }
}

const caught = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('a call under limits', () => {
  it('aborts its POST on the wire when the signal fires, and reports the outcome as unknown', async () => {
    const server = await holdingServer();
    const controller = new AbortController();
    const sent = withCallLimits({ signal: controller.signal }, () =>
      clientFor(server.url).send({ method: 'POST', path: '/payment/create', body: jsonBody({ reference: 'r' }) }),
    );
    await until(() => server.arrived.length === 1);
    controller.abort(new Error('the activity was cancelled'));
    const error = await caught(sent);
    // The request may have taken effect before it was abandoned: look it up, never resend it blind.
    expect(error).toBeInstanceOf(RampOutcomeUnknownError);
    await until(() => server.abandoned.length === 1);
    expect(server.abandoned).toEqual(['POST /payment/create']);
  });

  it('aborts a GET and starts no further attempt once the signal has fired', async () => {
    const server = await holdingServer();
    const controller = new AbortController();
    const sent = withCallLimits({ signal: controller.signal }, () =>
      clientFor(server.url).send({ method: 'GET', path: '/customer/detail', query: 'id=c1' }),
    );
    await until(() => server.arrived.length === 1);
    controller.abort(new Error('the activity was cancelled'));
    const error = await caught(sent);
    expect(error).toBeInstanceOf(RampConnectionError);
    expect((error as Error).message).toContain('abandoned');
    await until(() => server.abandoned.length === 1);
    expect(server.arrived).toHaveLength(1);
  });

  it('ends an attempt at the deadline, however long its own timeouts', async () => {
    const server = await holdingServer();
    const started = Date.now();
    const error = await caught(
      withCallLimits({ deadlineAt: started + 300 }, () =>
        clientFor(server.url).send({ method: 'POST', path: '/autoramp-flow/onramp', body: jsonBody({}) }),
      ),
    );
    expect(error).toBeInstanceOf(RampOutcomeUnknownError);
    expect(Date.now() - started).toBeLessThan(5_000);
    await until(() => server.abandoned.length === 1);

    // A GET that runs out of time is not retried past the deadline.
    const read = await caught(
      withCallLimits({ deadlineAt: Date.now() + 300 }, () =>
        clientFor(server.url).send({ method: 'GET', path: '/customer/detail', query: 'id=c1' }),
      ),
    );
    expect(read).toBeInstanceOf(RampConnectionError);
    expect((read as Error).message).toContain('ran out of time');
    expect(server.arrived).toEqual(['POST /autoramp-flow/onramp', 'GET /customer/detail?id=c1']);
  });

  it('tells the caller before each POST leaves, and never before a GET', async () => {
    const server = await holdingServer();
    const seenBefore: number[] = [];
    const controller = new AbortController();
    const limits = {
      signal: controller.signal,
      beforePost: async () => {
        seenBefore.push(server.arrived.length);
      },
    };
    const client = clientFor(server.url);
    const read = withCallLimits(limits, () => client.send({ method: 'GET', path: '/customer/detail', query: 'id=c1' }));
    await until(() => server.arrived.length === 1);
    const create = withCallLimits(limits, () =>
      client.send({ method: 'POST', path: '/customer/create', body: jsonBody({}) }),
    );
    await until(() => server.arrived.length === 2);
    controller.abort(new Error('done'));
    await Promise.all([caught(read), caught(create)]);
    // Told once, while the service had only the GET: before the POST was on the wire.
    expect(seenBefore).toEqual([1]);
  });
});
