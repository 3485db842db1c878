/**
 * The request layer against a real loopback server (and, for transport faults only undici can fake
 * precisely, an injected MockAgent): what goes on the wire, retries, clock correction and errors.
 */
import { createServer } from 'node:net';
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import {
  RampConnectionError,
  RampError,
  RampFailedError,
  RampHttpError,
  RampInvalidParametersError,
  RampOutcomeUnknownError,
  RampRateLimitedError,
  RampSchemaError,
  RampUnauthorisedError,
} from '../../ramp/errors';
import { LEASE_WAIT_LIMIT_MS } from '../../ramp/call-pacing';
import {
  attemptOutcome,
  RampHttpClient,
  jsonBody,
  type RampAttempt,
  type RampClientOptions,
} from '../../ramp/http-client';
import { failure, startSignedServer, success, type Reply, type SignedServer } from './support/signed-server';
import { caught } from './support/caught';

const SECRET = 'loopback-secret-7f3a';
const servers: SignedServer[] = [];
const clients: RampHttpClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(
  handler: (request: Parameters<Parameters<typeof startSignedServer>[1]>[0], index: number) => Reply | Promise<Reply>,
) {
  const server = await startSignedServer(SECRET, handler);
  servers.push(server);
  return server;
}

interface Harness {
  client: RampHttpClient;
  waits: number[];
}

function clientFor(baseUrl: string, options: Partial<RampClientOptions> = {}): Harness {
  const waits: number[] = [];
  const client = new RampHttpClient({
    baseUrl,
    apiKey: 'key-1',
    apiSecret: SECRET,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...options,
  });
  clients.push(client);
  return { client, waits };
}

/** A port with nothing listening: bind, note the port, close. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('on the wire', () => {
  it('signs what it sends: Host with the port, raw query, exact body, lowercase hex, seconds', async () => {
    const server = await serve(() => success({ ok: true }));
    const { client } = clientFor(server.url);
    const body = jsonBody({ realName: 'Zoë', externalId: 'e-1' });
    await client.send({ method: 'POST', path: '/customer/create', query: 'b=2&a=%2B1', body });

    const [request] = server.requests;
    expect(request?.signatureValid).toBe(true);
    expect(request?.headers.host).toBe(`127.0.0.1:${server.port}`);
    expect(request?.target).toBe('/customer/create?b=2&a=%2B1');
    expect(request?.body.equals(Buffer.from(body.bytes))).toBe(true);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['x-api-key']).toBe('key-1');
    expect(request?.headers['x-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(request?.headers['x-timestamp']).toMatch(/^\d{10}$/);
    expect(request?.headers['x-api-secret']).toBeUndefined();
  });

  it('prefixes the base URL path and signs the full path', async () => {
    const server = await serve(() => success(null));
    const { client } = clientFor(`${server.url}/partner/v1/`);
    await client.send({ method: 'GET', path: '/balance' });
    expect(server.requests[0]?.target).toBe('/partner/v1/balance');
    expect(server.requests[0]?.signatureValid).toBe(true);
  });

  it('keeps connections alive between calls', async () => {
    const server = await serve(() => success(null));
    const { client } = clientFor(server.url);
    for (let call = 0; call < 6; call += 1) await client.send({ method: 'GET', path: '/balance' });
    await client.send({
      method: 'POST',
      path: '/callback-url',
      body: jsonBody({ callbackUrl: 'https://x.test/hook' }),
    });
    expect(server.requests).toHaveLength(7);
    // undici may open a second socket while the first is still settling; it never opens one per call.
    expect(server.connectionCount()).toBeLessThanOrEqual(2);
  });
});

describe('retries of a GET', () => {
  it('retries 5xx with a fresh nonce, timestamp signature, and succeeds', async () => {
    const server = await serve((_request, index) => (index < 2 ? { status: 503, text: 'busy' } : success({ n: 1 })));
    const { client, waits } = clientFor(server.url, { retry: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1_000 } });
    const response = await client.send({ method: 'GET', path: '/balance' });
    expect(response.body.data).toEqual({ n: 1 });
    expect(server.requests).toHaveLength(3);
    expect(new Set(server.requests.map((request) => request.headers['x-nonce'])).size).toBe(3);
    expect(new Set(server.requests.map((request) => request.headers['x-signature'])).size).toBe(3);
    expect(server.requests.every((request) => request.signatureValid)).toBe(true);
    // Full jitter: each wait lies between 0 and the doubling bound.
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeLessThan(100);
    expect(waits[1]).toBeLessThan(200);
  });

  it('honours Retry-After on 429 when it is short, and gives up when it is long', async () => {
    const shortWait = await serve((_request, index) =>
      index === 0 ? { status: 429, headers: { 'retry-after': '1' }, text: '' } : success([]),
    );
    // A clock that stands still: the wait is the Retry-After itself, not less the milliseconds the answer took.
    const first = clientFor(shortWait.url, { retry: { maxDelayMs: 2_000 }, now: () => Date.UTC(2026, 10, 24) });
    await first.client.send({ method: 'GET', path: '/balance' });
    expect(first.waits).toEqual([1_000]);

    const longWait = await serve(() => ({ status: 429, headers: { 'retry-after': '120' }, text: '' }));
    const second = clientFor(longWait.url);
    const error = await caught(second.client.send({ method: 'GET', path: '/balance' }));
    expect(error).toBeInstanceOf(RampHttpError);
    expect(error.retryable).toBe(true);
    expect(longWait.requests).toHaveLength(1);
  });

  it("waits out a worker's join for a share of the partner's rate, and past it refuses the call unsent, so its activity frees its slot", async () => {
    const server = await serve(() => success([]));
    const joining = clientFor(server.url, { maxCallsPerSecond: 6 });
    // No share yet (a worker that has not been counted among the service queue's pollers).
    joining.client.pacer.lease({ places: 0, validUntil: Number.MAX_SAFE_INTEGER });
    const error = await caught(joining.client.send({ method: 'GET', path: '/balance' }));
    expect(error).toBeInstanceOf(RampRateLimitedError);
    expect(error.message).toContain("no share of the partner's rate");
    expect(server.requests).toHaveLength(0);
    expect(joining.waits.reduce((sum, wait) => sum + wait, 0)).toBe(LEASE_WAIT_LIMIT_MS);

    // A share that comes within the limit (the worker joined): the call goes.
    const waits: number[] = [];
    const joined = clientFor(server.url, {
      maxCallsPerSecond: 6,
      sleep: async (ms) => {
        waits.push(ms);
        if (waits.length === 4) joined.pacer.lease({ places: 2, validUntil: Number.MAX_SAFE_INTEGER });
      },
    }).client;
    joined.pacer.lease({ places: 0, validUntil: Number.MAX_SAFE_INTEGER });
    await joined.send({ method: 'GET', path: '/balance' });
    expect(server.requests).toHaveLength(1);
    expect(waits).toHaveLength(4);
  });

  it('stops after maxAttempts with a retryable RampHttpError', async () => {
    const server = await serve(() => ({ status: 502, text: '<html>bad gateway</html>' }));
    const { client } = clientFor(server.url, { retry: { maxAttempts: 4 } });
    const error = await caught(client.send({ method: 'GET', path: '/trade/list', query: 'pageNum=1' }));
    expect(error).toBeInstanceOf(RampHttpError);
    expect(error).toMatchObject({ httpStatus: 502, retryable: true, method: 'GET', path: '/trade/list' });
    expect(server.requests).toHaveLength(4);
  });

  it('retries a dropped connection', async () => {
    const server = await serve((_request, index) => (index === 0 ? { destroySocket: true } : success('ok')));
    const { client } = clientFor(server.url);
    expect((await client.send({ method: 'GET', path: '/balance' })).body.data).toBe('ok');
    expect(server.requests).toHaveLength(2);
  });

  it('times out per attempt and retries', async () => {
    const server = await serve((_request, index) => (index === 0 ? { neverAnswer: true } : success('late')));
    const { client } = clientFor(server.url, { headersTimeoutMs: 150 });
    expect((await client.send({ method: 'GET', path: '/balance' })).body.data).toBe('late');
    expect(server.requests).toHaveLength(2);
  });

  it('ends in RampConnectionError when nothing listens', async () => {
    const port = await closedPort();
    const { client, waits } = clientFor(`http://127.0.0.1:${port}`);
    const error = await caught(client.send({ method: 'GET', path: '/balance' }));
    expect(error).toBeInstanceOf(RampConnectionError);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('ECONNREFUSED');
    expect(waits).toHaveLength(2);
  });
});

describe('a POST', () => {
  it('is not retried on 5xx: the outcome is unknown', async () => {
    const server = await serve(() => ({ status: 500, text: 'oops' }));
    const { client } = clientFor(server.url);
    const error = await caught(
      client.send({ method: 'POST', path: '/customer/create', body: jsonBody({ externalId: 'e' }) }),
    );
    expect(error).toBeInstanceOf(RampOutcomeUnknownError);
    expect(error).toMatchObject({ httpStatus: 500, retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it('is not retried when the connection drops after sending', async () => {
    const server = await serve(() => ({ destroySocket: true }));
    const { client } = clientFor(server.url);
    const error = await caught(
      client.send({ method: 'POST', path: '/customer/create', body: jsonBody({ externalId: 'e' }) }),
    );
    expect(error).toBeInstanceOf(RampOutcomeUnknownError);
    expect(server.requests).toHaveLength(1);
  });

  it('is not retried when the answer times out', async () => {
    const server = await serve(() => ({ neverAnswer: true }));
    const { client } = clientFor(server.url, { headersTimeoutMs: 150 });
    const error = await caught(
      client.send({ method: 'POST', path: '/autoramp-flow/onramp', body: jsonBody({ to: 'x' }) }),
    );
    expect(error).toBeInstanceOf(RampOutcomeUnknownError);
    expect(error.message).toContain('look the record up');
    expect(server.requests).toHaveLength(1);
  });

  it('is retried when the connection was refused (it provably never left)', async () => {
    const port = await closedPort();
    const { client, waits } = clientFor(`http://127.0.0.1:${port}`, { retry: { maxAttempts: 3 } });
    const error = await caught(client.send({ method: 'POST', path: '/customer/create', body: jsonBody({}) }));
    expect(error).toBeInstanceOf(RampConnectionError);
    expect(waits).toHaveLength(2);
  });

  it('is retried after a connect refusal and then succeeds (MockAgent)', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get('https://ramp.test');
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { code: 'ECONNREFUSED' });
    pool.intercept({ path: '/customer/create', method: 'POST' }).replyWithError(refused);
    pool.intercept({ path: '/customer/create', method: 'POST' }).reply(200, { status: 'SUCCESS', data: { id: 'c-1' } });
    const { client } = clientFor('https://ramp.test', { dispatcher: agent });
    expect((await client.send({ method: 'POST', path: '/customer/create', body: jsonBody({}) })).body.data).toEqual({
      id: 'c-1',
    });
    await agent.close();
  });

  it('gets a retryable RampHttpError on 429 (refused, not processed) without an internal retry', async () => {
    const server = await serve(() => ({ status: 429, text: '' }));
    const { client } = clientFor(server.url);
    const error = await caught(client.send({ method: 'POST', path: '/customer/create', body: jsonBody({}) }));
    expect(error).toBeInstanceOf(RampHttpError);
    expect(error.retryable).toBe(true);
    expect(server.requests).toHaveLength(1);
  });
});

describe('errors keyed on the body status, then the HTTP code', () => {
  const cases: Array<[string, Reply, new (...args: never[]) => RampError, boolean]> = [
    ['422 INVALID_PARAMETERS', failure('INVALID_PARAMETERS', 'pageSize too large'), RampInvalidParametersError, false],
    ['422 UNAUTHORISED', failure('UNAUTHORISED', 'bad signature'), RampUnauthorisedError, false],
    ['422 FAILED', failure('FAILED', 'provider down'), RampFailedError, true],
    ['422 with an unlisted status', failure('SOMETHING_NEW', 'hm'), RampFailedError, true],
    [
      'a gateway 401 with an HTML body',
      { status: 401, text: '<html>401 Authorization Required</html>' },
      RampUnauthorisedError,
      false,
    ],
    [
      'a 200 whose body says UNAUTHORISED',
      { json: { status: 'UNAUTHORISED', message: 'ip not whitelisted' } },
      RampUnauthorisedError,
      false,
    ],
    ['404', { status: 404, text: 'not found' }, RampHttpError, false],
    ['a 200 that is not JSON', { text: 'hello' }, RampSchemaError, false],
    ['a 200 without SUCCESS', { json: { status: 'DONE', data: {} } }, RampSchemaError, false],
  ];

  it.each(cases)('%s', async (_label, reply, errorClass, retryable) => {
    const server = await serve(() => reply);
    const { client } = clientFor(server.url);
    const error = await caught(client.send({ method: 'GET', path: '/deposit/detail', query: 'id=d-1' }));
    expect(error).toBeInstanceOf(errorClass);
    expect(error.retryable).toBe(retryable);
    expect(error.method).toBe('GET');
    expect(error.path).toBe('/deposit/detail');
    expect(error.httpStatus).toBe('status' in reply && reply.status !== undefined ? reply.status : 200);
    expect(server.requests).toHaveLength(1);
  });

  it('carries the service message and never the secret, the signature or the query', async () => {
    const server = await serve(() => failure('INVALID_PARAMETERS', 'externalId already used'));
    const { client } = clientFor(server.url);
    const error = await caught(
      client.send({
        method: 'POST',
        path: '/customer/create',
        query: 'email=secret%40x.test',
        body: jsonBody({ externalId: 'e' }),
      }),
    );
    expect(error.serviceMessage).toBe('externalId already used');
    expect(error.message).toBe(
      'POST /customer/create (HTTP 422): the service refused the parameters: INVALID_PARAMETERS: externalId already used',
    );
    const signature = String(server.requests[0]?.headers['x-signature']);
    const everything = `${error.message} ${JSON.stringify(error)} ${String(error.stack)} ${JSON.stringify(Object.entries(error))}`;
    for (const forbidden of [SECRET, signature, 'email=']) expect(everything).not.toContain(forbidden);
  });
});

describe('clock skew', () => {
  /** A service that refuses timestamps more than 60 s from its own clock, one hour ahead of ours. */
  const SERVICE_AHEAD_MS = 3_600_000;
  function skewCheckingReply(request: { headers: Record<string, unknown> }, serviceNowMs: number): Reply {
    const date = new Date(serviceNowMs).toUTCString();
    const skew = Math.abs(Number(request.headers['x-timestamp']) - Math.floor(serviceNowMs / 1000));
    return skew > 60
      ? { status: 422, headers: { date }, json: { status: 'UNAUTHORISED', message: 'timestamp out of range' } }
      : { headers: { date }, json: { status: 'SUCCESS', data: 'in time' } };
  }

  it('learns the offset from Date and retries an UNAUTHORISED once', async () => {
    const server = await serve((request) => skewCheckingReply(request, Date.now() + SERVICE_AHEAD_MS));
    const { client } = clientFor(server.url);
    const response = await client.send({ method: 'POST', path: '/customer/create', body: jsonBody({}) });
    expect(response.body.data).toBe('in time');
    expect(server.requests).toHaveLength(2);
    expect(Math.abs(client.clock.offsetMs - SERVICE_AHEAD_MS)).toBeLessThan(2_000);
    // Later calls carry the corrected timestamp from the start.
    await client.send({ method: 'GET', path: '/balance' });
    expect(server.requests).toHaveLength(3);
  });

  it('retries only once when the credentials are what is wrong', async () => {
    const server = await serve(() => ({
      status: 401,
      headers: { date: new Date(Date.now() + SERVICE_AHEAD_MS).toUTCString() },
      text: 'Unauthorized',
    }));
    const { client } = clientFor(server.url);
    const error = await caught(client.send({ method: 'GET', path: '/balance' }));
    expect(error).toBeInstanceOf(RampUnauthorisedError);
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry an UNAUTHORISED when the clocks agree', async () => {
    const server = await serve(() => ({
      status: 422,
      headers: { date: new Date().toUTCString() },
      json: { status: 'UNAUTHORISED', message: 'bad key' },
    }));
    const { client } = clientFor(server.url);
    await caught(client.send({ method: 'GET', path: '/balance' }));
    expect(server.requests).toHaveLength(1);
    expect(client.clock.offsetMs).toBe(0);
  });
});

describe('onAttempt: what the worker counts (rampflow_service_requests_total)', () => {
  it('tells each attempt with the endpoint template, never the query, and its outcome class', async () => {
    const replies: Reply[] = [
      { status: 503, json: { status: 'ERROR', message: 'down' } },
      { status: 429, json: { status: 'ERROR', message: 'slow down' } },
      success({ id: 'c-1' }),
      failure('INVALID_PARAMETERS', 'bad email'),
    ];
    const server = await serve((_request, index) => replies[index]!);
    const attempts: RampAttempt[] = [];
    const { client } = clientFor(server.url, { onAttempt: (attempt) => attempts.push(attempt) });
    await client.send({ method: 'GET', path: '/customer/detail', query: 'customerId=c-1' });
    await caught(client.send({ method: 'POST', path: '/customer/create', body: jsonBody({ email: 'x' }) }));
    expect(attempts.map(({ method, endpoint, outcome }) => ({ method, endpoint, outcome }))).toEqual([
      { method: 'GET', endpoint: '/customer/detail', outcome: '5xx' },
      { method: 'GET', endpoint: '/customer/detail', outcome: '429' },
      { method: 'GET', endpoint: '/customer/detail', outcome: '2xx' },
      { method: 'POST', endpoint: '/customer/create', outcome: '4xx' },
    ]);
    expect(attempts[2]!.errorType).toBe('');
    expect(attempts[3]!.errorType).toMatch(/^Ramp\w+Error$/);
    for (const attempt of attempts) expect(attempt.seconds).toBeGreaterThanOrEqual(0);
  });

  it('tells an attempt that got no answer as network, and a hook that throws never fails the call', async () => {
    const attempts: RampAttempt[] = [];
    const { client } = clientFor(`http://127.0.0.1:${await closedPort()}`, {
      retry: { maxAttempts: 1 },
      onAttempt: (attempt) => attempts.push(attempt),
    });
    await caught(client.send({ method: 'GET', path: '/customer/list' }));
    expect(attempts.map((attempt) => attempt.outcome)).toEqual(['network']);
    const server = await serve(() => success({ ok: true }));
    const throwing = clientFor(server.url, {
      onAttempt: () => {
        throw new Error('metrics broke');
      },
    });
    await expect(throwing.client.send({ method: 'GET', path: '/customer/list' })).resolves.toMatchObject({
      httpStatus: 200,
    });
  });

  it('classes statuses', () => {
    expect([200, 204, 400, 404, 422, 429, 500, 503, 302].map(attemptOutcome)).toEqual([
      '2xx',
      '2xx',
      '4xx',
      '4xx',
      '4xx',
      '429',
      '5xx',
      '5xx',
      'other',
    ]);
  });
});
