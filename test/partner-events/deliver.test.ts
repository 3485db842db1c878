/**
 * deliverEvent against real endpoints on loopback: every delivery is verified with the
 * `standardwebhooks` package itself, as a partner's backend would; then what each answer means.
 */
import { createServer as createTcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { DeliveryAttempt, PartnerEndpoint } from '../../partner-events/endpoint-types';
import { createDeliveryAgent, deliverEvent, USER_AGENT } from '../../partner-events/deliver';
import { generateEndpointSecret } from '../../partner-events/local-endpoint';
import { freePort } from '../../dev/ports';
import { KYC_LINK, sampleEvent, startServer, webhookHeaders, type TestServer } from './support';

// Loopback endpoints: what PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS=true allows.
const agent = createDeliveryAgent({ allowPrivateAddresses: true });
const servers: TestServer[] = [];
const OLD_SECRET = generateEndpointSecret();
const NEW_SECRET = generateEndpointSecret();

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await agent.close();
});

/** An endpoint that answers 204 only to deliveries `secret` verifies, and 401 to the rest. */
async function verifyingEndpoint(secret: string): Promise<TestServer> {
  const verifier = new Webhook(secret);
  const server = await startServer((received, response) => {
    try {
      verifier.verify(received.body, webhookHeaders(received));
      response.writeHead(204).end();
    } catch {
      response.writeHead(401).end();
    }
  });
  servers.push(server);
  return server;
}

async function answering(status: number, headers: Record<string, string> = {}, body = ''): Promise<TestServer> {
  const server = await startServer((_received, response) => {
    response.writeHead(status, headers).end(body);
  });
  servers.push(server);
  return server;
}

function endpoint(url: string, secrets: string[] = [NEW_SECRET]): PartnerEndpoint {
  return { name: 'acme', url, secrets };
}

const deliver = (url: string, secrets?: string[], timeoutMs = 5_000) =>
  deliverEvent(endpoint(url, secrets), sampleEvent(), { timeoutMs, dispatcher: agent });

async function until(holds: () => boolean): Promise<void> {
  while (!holds()) await new Promise((wake) => setTimeout(wake, 20));
}

/** No reason may carry the event's data or a secret. */
function expectNothingPrivate(attempt: DeliveryAttempt): void {
  const text = JSON.stringify(attempt);
  expect(text).not.toContain(KYC_LINK);
  expect(text).not.toContain(NEW_SECRET.slice(6));
  expect(text).not.toContain('/hooks');
}

describe('a delivery a standardwebhooks endpoint verifies', () => {
  let endpointServer: TestServer;
  beforeAll(async () => {
    endpointServer = await verifyingEndpoint(NEW_SECRET);
  });

  it('is accepted, with the envelope exactly as the body and the Standard Webhooks headers', async () => {
    const attemptAt = new Date(Date.now() - 90_000);
    const attempt = await deliverEvent(endpoint(endpointServer.url), sampleEvent(), {
      timeoutMs: 5_000,
      dispatcher: agent,
      now: () => attemptAt,
    });
    expect(attempt).toEqual({ outcome: 'delivered', status: 204 });
    const received = endpointServer.received.at(-1)!;
    expect(received.body).toBe(JSON.stringify(sampleEvent()));
    expect(new Webhook(NEW_SECRET).verify(received.body, webhookHeaders(received))).toEqual(sampleEvent());
    expect(received.headers['content-type']).toBe('application/json');
    expect(received.headers['user-agent']).toBe(USER_AGENT);
    expect(received.headers['webhook-id']).toBe(sampleEvent().id);
    expect(received.headers['webhook-timestamp']).toBe(String(Math.floor(attemptAt.getTime() / 1000)));
    expect(received.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('carries the same webhook-id on a retry, with a fresh timestamp and signature', async () => {
    await deliverEvent(endpoint(endpointServer.url), sampleEvent(), {
      timeoutMs: 5_000,
      dispatcher: agent,
      now: () => new Date(Date.now() - 10_000),
    });
    await deliverEvent(endpoint(endpointServer.url), sampleEvent(), { timeoutMs: 5_000, dispatcher: agent });
    const [first, second] = endpointServer.received.slice(-2);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(second!.headers['webhook-timestamp']).not.toBe(first!.headers['webhook-timestamp']);
    expect(second!.headers['webhook-signature']).not.toBe(first!.headers['webhook-signature']);
  });

  it('signs the UTF-8 bytes it sends, whatever the characters', async () => {
    const event = { ...sampleEvent({ id: 'evt_nonAsciiExternalId01' }), externalId: 'zoë-東京-🚀' };
    expect(await deliverEvent(endpoint(endpointServer.url), event, { timeoutMs: 5_000, dispatcher: agent })).toEqual({
      outcome: 'delivered',
      status: 204,
    });
    expect(JSON.parse(endpointServer.received.at(-1)!.body)).toEqual(event);
  });

  it('is signed with every secret, so an endpoint knowing only the old or only the new one accepts it (rotation)', async () => {
    const knowsOld = await verifyingEndpoint(OLD_SECRET);
    const knowsNew = await verifyingEndpoint(NEW_SECRET);
    expect(await deliver(knowsOld.url, [NEW_SECRET, OLD_SECRET])).toEqual({ outcome: 'delivered', status: 204 });
    expect(await deliver(knowsNew.url, [NEW_SECRET, OLD_SECRET])).toEqual({ outcome: 'delivered', status: 204 });
    expect(knowsOld.received[0]!.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
  });

  it('is refused when the body is tampered with, or signed with a secret the endpoint does not know', async () => {
    const received = endpointServer.received.at(-1)!;
    const tampered = received.body.replace('"sequence":1', '"sequence":2');
    expect(tampered).not.toBe(received.body);
    expect(() => new Webhook(NEW_SECRET).verify(tampered, webhookHeaders(received))).toThrow(WebhookVerificationError);
    const attempt = await deliver(endpointServer.url, [OLD_SECRET]);
    expect(attempt).toEqual({ outcome: 'failed', status: 401, reason: 'HTTP 401' });
  });
});

describe('what an answer means', () => {
  it('410 Gone: gone', async () => {
    expect(await deliver((await answering(410)).url)).toEqual({ outcome: 'gone', status: 410 });
  });

  it('500: failed, with the status and nothing private', async () => {
    const attempt = await deliver((await answering(500, { 'content-type': 'text/plain' }, `echo ${KYC_LINK}`)).url);
    expect(attempt).toEqual({ outcome: 'failed', status: 500, reason: 'HTTP 500' });
    expectNothingPrivate(attempt);
  });

  it.each([301, 302, 307])('%i: failed, and the redirect is not followed', async (status) => {
    const target = await answering(204);
    const attempt = await deliver((await answering(status, { location: target.url })).url);
    expect(attempt).toMatchObject({ outcome: 'failed', status });
    expect(target.received).toHaveLength(0);
    expectNothingPrivate(attempt);
  });

  it('a 2xx with a large answer is delivered, only a few KiB of it read', async () => {
    const attempt = await deliver(
      (await answering(200, { 'content-type': 'text/plain' }, 'x'.repeat(1024 * 1024))).url,
    );
    expect(attempt).toEqual({ outcome: 'delivered', status: 200 });
  });

  it('an endpoint slower than timeoutMs: failed, at the timeout', async () => {
    const slow = await startServer((_received, response) => {
      setTimeout(() => response.writeHead(200).end(), 3_000).unref();
    });
    servers.push(slow);
    const started = Date.now();
    const attempt = await deliver(slow.url, undefined, 300);
    expect(attempt).toEqual({ outcome: 'failed', reason: 'no answer within 300 ms' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('stopped by its signal (its activity was cancelled or ran out of time): failed, and nothing is sent once stopped', async () => {
    let received = 0;
    const slow = await startServer((_received, response) => {
      received += 1;
      setTimeout(() => response.writeHead(200).end(), 3_000).unref();
    });
    servers.push(slow);
    const stop = new AbortController();
    const attempt = deliverEvent(endpoint(slow.url), sampleEvent(), {
      timeoutMs: 10_000,
      dispatcher: agent,
      signal: stop.signal,
    });
    await until(() => received === 1);
    stop.abort();
    expect(await attempt).toEqual({ outcome: 'failed', reason: expect.stringMatching(/^stopped/) });
    expect(
      await deliverEvent(endpoint(slow.url), sampleEvent(), {
        timeoutMs: 10_000,
        dispatcher: agent,
        signal: stop.signal,
      }),
    ).toEqual({ outcome: 'failed', reason: expect.stringMatching(/^stopped/) });
    expect(received).toBe(1);
  });

  it('a refused connection: failed, saying so without the URL', async () => {
    const port = await freePort();
    const attempt = await deliver(`http://127.0.0.1:${port}/hooks`);
    expect(attempt).toEqual({ outcome: 'failed', reason: 'connection refused' });
    expectNothingPrivate(attempt);
  });

  it('a connection closed without an answer: failed', async () => {
    const rude = createTcpServer((socket) => socket.destroy());
    await new Promise<void>((ready) => rude.listen(0, '127.0.0.1', ready));
    const { port } = rude.address() as { port: number };
    try {
      const attempt = await deliver(`http://127.0.0.1:${port}/hooks`);
      expect(attempt).toMatchObject({ outcome: 'failed' });
      expect(attempt.outcome === 'failed' && attempt.status).toBeFalsy();
      expectNothingPrivate(attempt);
    } finally {
      await new Promise((done) => rude.close(done));
    }
  });
});
