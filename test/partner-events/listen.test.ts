/**
 * `rampflow partner-events listen` as a developer runs it (a child process), fed by deliverEvent
 * from the configuration line it prints, forwarding to a target that verifies with
 * `standardwebhooks`; and the local endpoint in-process for the cases without a target.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { freePort } from '../../dev/ports';
import { createDeliveryAgent, deliverEvent } from '../../partner-events/deliver';
import type { PartnerEndpoint } from '../../partner-events/endpoint-types';
import { parsePartnerEndpoints } from '../../partner-events/endpoints';
import { generateEndpointSecret, localEndpointConfig, startLocalEndpoint } from '../../partner-events/local-endpoint';
import { until } from '../support/until';
import { PROJECT_ROOT, runRampflow } from '../support/run';
import { KYC_LINK, sampleEvent, startServer, webhookHeaders, type TestServer } from './support';

// Loopback endpoints: what PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS=true allows.
const agent = createDeliveryAgent({ allowPrivateAddresses: true });
afterAll(() => agent.close());

describe('rampflow partner-events listen --forward-to', () => {
  let listener: ChildProcessWithoutNullStreams;
  let output = '';
  let target: TestServer;
  let configured: PartnerEndpoint;
  /** What the target answers once the delivery verifies. */
  let targetStatus = 204;

  beforeAll(async () => {
    target = await startServer((received, response) => {
      try {
        new Webhook(configured.secrets[0]!).verify(received.body, webhookHeaders(received));
        response.writeHead(targetStatus).end();
      } catch {
        response.writeHead(401).end();
      }
    });
    const port = await freePort();
    listener = spawn(
      process.execPath,
      [
        join(PROJECT_ROOT, 'bin', 'rampflow.cjs'),
        'partner-events',
        'listen',
        '--port',
        String(port),
        '--forward-to',
        target.url,
      ],
      { cwd: PROJECT_ROOT },
    );
    listener.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    listener.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const line = await until(
      'the configuration line',
      async () => output.split('\n').find((text) => text.startsWith('PARTNER_EVENT_ENDPOINTS=')),
      15_000,
      50,
    );
    const parsed = parsePartnerEndpoints(line.replace(/^PARTNER_EVENT_ENDPOINTS='(.*)'$/, '$1'));
    if (!parsed.ok) throw new Error(parsed.problem);
    configured = parsed.endpoints[0]!;
    expect(configured.url).toBe(`http://127.0.0.1:${port}/`);
  }, 30_000);

  afterAll(async () => {
    listener.kill('SIGTERM');
    await new Promise((done) => listener.once('exit', done));
    await target.close();
  });

  it('prints the configuration once, with a fresh whsec_ secret', () => {
    expect(output.match(/PARTNER_EVENT_ENDPOINTS=/g)).toHaveLength(1);
    expect(configured.secrets[0]).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });

  it('verifies a delivery, forwards it unchanged to a target that verifies it too, and prints one line without the data', async () => {
    const event = sampleEvent({ id: 'evt_listenForwarded000001', sequence: 7 });
    const attempt = await deliverEvent(configured, event, { timeoutMs: 5_000, dispatcher: agent });
    expect(attempt).toEqual({ outcome: 'delivered', status: 200 });
    const forwarded = target.received.at(-1)!;
    expect(forwarded.body).toBe(JSON.stringify(event));
    expect(forwarded.headers['webhook-id']).toBe(event.id);
    expect(forwarded.headers['content-type']).toBe('application/json');
    expect(new Webhook(configured.secrets[0]!).verify(forwarded.body, webhookHeaders(forwarded))).toEqual(event);
    const line = await until(
      "the event's line",
      async () => output.split('\n').find((text) => text.includes(event.id)),
      5_000,
      20,
    );
    expect(line).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ journey\.kyc_required user-42 #7 evt_listenForwarded000001 → 204$/,
    );
    expect(output).not.toContain(KYC_LINK);
  });

  it('answers 401 to a bad signature, says so, and forwards nothing', async () => {
    const before = target.received.length;
    const impostor = { ...configured, secrets: [generateEndpointSecret()] };
    const attempt = await deliverEvent(impostor, sampleEvent({ id: 'evt_listenImpostor0000001' }), {
      timeoutMs: 5_000,
      dispatcher: agent,
    });
    expect(attempt).toEqual({ outcome: 'failed', status: 401, reason: 'HTTP 401' });
    expect(target.received).toHaveLength(before);
    await until(
      "the refusal's line",
      async () => (output.includes('rejected a delivery (401): No matching signature found') ? true : undefined),
      5_000,
      20,
    );
    expect(output).not.toContain('evt_listenImpostor0000001');
  });

  it("passes the target's verdict back: 410 stays 410, any other failure becomes 502 so rampflow retries", async () => {
    targetStatus = 410;
    expect(
      await deliverEvent(configured, sampleEvent({ id: 'evt_listenGone00000000001' }), {
        timeoutMs: 5_000,
        dispatcher: agent,
      }),
    ).toEqual({ outcome: 'gone', status: 410 });
    targetStatus = 500;
    expect(
      await deliverEvent(configured, sampleEvent({ id: 'evt_listenFailing00000001' }), {
        timeoutMs: 5_000,
        dispatcher: agent,
      }),
    ).toEqual({ outcome: 'failed', status: 502, reason: 'HTTP 502' });
    targetStatus = 204;
    await until(
      "the failing event's line",
      async () => output.split('\n').find((text) => text.includes('evt_listenFailing00000001 → 500')),
      5_000,
      20,
    );
    // One line per event: the forwarded, the gone and the failing one, plus the refusal.
    expect(output.split('\n').filter((text) => /Z (journey\.|rejected)/.test(text))).toHaveLength(4);
  });
});

describe('the local endpoint without a target', () => {
  it('answers 200 to every verified delivery and marks a retry of the same webhook-id', async () => {
    const secret = generateEndpointSecret();
    const lines: string[] = [];
    const endpoint = await startLocalEndpoint({ secret, port: 0, print: (line) => lines.push(line) });
    try {
      const configured = localEndpointConfig(endpoint.url, secret);
      const event = sampleEvent({ id: 'evt_localNoTarget0000001' });
      expect(await deliverEvent(configured, event, { timeoutMs: 5_000, dispatcher: agent })).toEqual({
        outcome: 'delivered',
        status: 200,
      });
      expect(await deliverEvent(configured, event, { timeoutMs: 5_000, dispatcher: agent })).toEqual({
        outcome: 'delivered',
        status: 200,
      });
      expect(lines).toEqual([
        expect.stringMatching(/ evt_localNoTarget0000001 → 200$/),
        expect.stringMatching(/ evt_localNoTarget0000001 → 200 \(again: same webhook-id\)$/),
      ]);
    } finally {
      await endpoint.close();
    }
  });

  it('answers 502 when the target cannot be reached', async () => {
    const secret = generateEndpointSecret();
    const lines: string[] = [];
    const endpoint = await startLocalEndpoint({
      secret,
      port: 0,
      forwardTo: `http://127.0.0.1:${await freePort()}/hooks`,
      print: (line) => lines.push(line),
    });
    try {
      const attempt = await deliverEvent(localEndpointConfig(endpoint.url, secret), sampleEvent(), {
        timeoutMs: 5_000,
        dispatcher: agent,
      });
      expect(attempt).toEqual({ outcome: 'failed', status: 502, reason: 'HTTP 502' });
      expect(lines).toEqual([expect.stringMatching(/ → unreachable \(ECONNREFUSED\)$/)]);
    } finally {
      await endpoint.close();
    }
  });
});

describe('rampflow partner-events listen --secret', () => {
  it('refuses a malformed secret without quoting it', async () => {
    const bad = `whsec_${Buffer.alloc(8, 9).toString('base64')}`;
    const result = await runRampflow(
      ['partner-events', 'listen', '--port', String(await freePort()), '--secret', bad],
      { timeoutMs: 20_000 },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('rampflow: --secret must encode 24 to 64 bytes (it encodes 8)\n');
    expect(result.stdout).toBe('');
  });
});
