/**
 * Partner events are not sent into the worker's own network unless an operator opts in
 * (PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS): endpoint URLs naming private, loopback or link-local
 * hosts are refused when the configuration is read, and a host name that resolves to such an
 * address is refused when it is connected to. No DNS here: literal addresses, and host names
 * resolved by an injected lookup.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, parseEnv } from '../../config/env';
import { createDeliveryAgent, deliverEvent } from '../../partner-events/deliver';
import {
  guardedLookup,
  hostIsPrivate,
  isPrivateAddress,
  type ResolveAll,
} from '../../partner-events/endpoint-addresses';
import { partnerEndpointsFromEnv, PartnerEventEndpointsEnvSchema } from '../../partner-events/endpoints-env';
import type { Agent } from 'undici';
import { z } from 'zod';
import { sampleEvent, startServer, type TestServer } from './support';

const SECRET = `whsec_${Buffer.alloc(32, 0xab).toString('base64')}`;
const agents: Agent[] = [];
const servers: TestServer[] = [];
afterAll(async () => {
  await Promise.all([...servers.map((server) => server.close()), ...agents.map((agent) => agent.close())]);
});

const resolvingTo =
  (...addresses: string[]): ResolveAll =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('which addresses are private', () => {
  it.each([
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.31.255.254',
    '192.168.1.1',
    '127.0.0.1',
    '127.8.9.10',
    '169.254.169.254',
    '0.0.0.0',
    '::1',
    '::',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'febf::1',
    '::ffff:10.1.2.3',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
  ])('%s is private', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '172.15.255.255',
    '172.32.0.1',
    '192.169.0.1',
    '169.253.0.1',
    '11.0.0.1',
    '2001:db8::1',
    '2606:4700::1111',
    'fec0::1',
    '::ffff:8.8.8.8',
  ])('%s is public', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it('a URL host: literal addresses (bracketed IPv6 too) and localhost are judged; other names wait for their lookup', () => {
    for (const url of [
      'https://10.0.0.5/hooks',
      'https://[::1]:8443/hooks',
      'https://[fe80::1]/x',
      'http://localhost:3000/x',
      'https://0x7f.1/x',
      'https://169.254.169.254/latest',
    ]) {
      expect(hostIsPrivate(new URL(url).hostname)).toBe(true);
    }
    for (const url of ['https://partner.example.com/hooks', 'https://8.8.8.8/hooks', 'https://[2001:db8::1]/hooks'])
      expect(hostIsPrivate(new URL(url).hostname)).toBe(false);
  });
});

describe('the configuration', () => {
  const configured = (url: string, allow?: string) =>
    partnerEndpointsFromEnv(
      parseEnv(PartnerEventEndpointsEnvSchema, {
        PARTNER_EVENT_ENDPOINTS: JSON.stringify([{ name: 'acme', url, secrets: [SECRET] }]),
        ...(allow !== undefined ? { PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS: allow } : {}),
      }),
    );

  it('refuses an endpoint on a private, loopback or link-local host, naming the endpoint and the opt-in, never the URL', () => {
    for (const url of [
      'https://10.1.2.3/hooks?token=sekrit',
      'http://127.0.0.1:4000/hooks?token=sekrit',
      'https://[fd00::5]/hooks?token=sekrit',
      'https://169.254.169.254/hooks?token=sekrit',
      'http://localhost:4000/hooks?token=sekrit',
    ]) {
      let error: unknown;
      try {
        configured(url);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toContain('endpoint 1 (acme)');
      expect((error as ConfigError).message).toContain('PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS=true');
      expect((error as ConfigError).message).not.toContain('sekrit');
    }
  });

  it('takes them with the opt-in, and public hosts without it', () => {
    expect(configured('http://127.0.0.1:4000/hooks', 'true')).toEqual([expect.objectContaining({ name: 'acme' })]);
    expect(configured('https://10.1.2.3/hooks', 'true')).toHaveLength(1);
    expect(configured('https://partner.example.com/hooks')).toHaveLength(1);
    expect(configured('https://partner.example.com/hooks', 'false')).toHaveLength(1);
  });

  it("refuses them in a process that reads the variables through the schema's shape (as the worker does)", () => {
    const config = parseEnv(z.object({}).extend(PartnerEventEndpointsEnvSchema.shape), {
      PARTNER_EVENT_ENDPOINTS: JSON.stringify([{ name: 'acme', url: 'https://192.168.0.9/hooks', secrets: [SECRET] }]),
    });
    expect(() => partnerEndpointsFromEnv(config)).toThrow(
      /endpoint 1 \(acme\).*PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS=true/,
    );
  });
});

describe('at delivery time', () => {
  it('a host name that resolves to a private address is refused when connecting, and nothing is sent', async () => {
    let received = 0;
    const server = await startServer((_request, response) => {
      received += 1;
      response.writeHead(204).end();
    });
    servers.push(server);
    const port = new URL(server.url).port;
    // partner.example.test "now" resolves to loopback (DNS changed after the start): refused.
    const agent = createDeliveryAgent({ resolve: resolvingTo('127.0.0.1') });
    agents.push(agent);
    const endpoint = { name: 'acme', url: `http://partner.example.test:${port}/hooks?token=sekrit`, secrets: [SECRET] };
    const attempt = await deliverEvent(endpoint, sampleEvent(), { timeoutMs: 5_000, dispatcher: agent });
    expect(attempt).toEqual({
      outcome: 'failed',
      reason: expect.stringMatching(/^refused: .*private.*PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS=true/),
    });
    expect(JSON.stringify(attempt)).not.toContain('sekrit');
    // One private address among public ones is enough to refuse.
    const mixed = createDeliveryAgent({ resolve: resolvingTo('93.184.216.34', '10.0.0.7') });
    agents.push(mixed);
    expect(await deliverEvent(endpoint, sampleEvent(), { timeoutMs: 5_000, dispatcher: mixed })).toMatchObject({
      outcome: 'failed',
      reason: expect.stringMatching(/^refused/),
    });
    // A literal private address never reaches a lookup: refused as it is.
    const literal = createDeliveryAgent();
    agents.push(literal);
    expect(
      await deliverEvent({ ...endpoint, url: server.url }, sampleEvent(), { timeoutMs: 5_000, dispatcher: literal }),
    ).toMatchObject({ outcome: 'failed', reason: expect.stringMatching(/^refused/) });
    expect(received).toBe(0);

    // With the opt-in the same name is delivered to.
    const allowed = createDeliveryAgent({ allowPrivateAddresses: true, resolve: resolvingTo('127.0.0.1') });
    agents.push(allowed);
    expect(
      await deliverEvent({ ...endpoint, url: server.url }, sampleEvent(), { timeoutMs: 5_000, dispatcher: allowed }),
    ).toEqual({ outcome: 'delivered', status: 204 });
    expect(received).toBe(1);
  });

  it('the lookup hands a public answer on, in the form asked for', async () => {
    const lookup = guardedLookup(resolvingTo('93.184.216.34', '2606:2800:220:1::1'));
    const one = await new Promise((resolve, reject) =>
      lookup('partner.example.test', { family: 6 }, (error, address, family) =>
        error ? reject(error) : resolve({ address, family }),
      ),
    );
    expect(one).toEqual({ address: '2606:2800:220:1::1', family: 6 });
    const all = await new Promise((resolve, reject) =>
      lookup('partner.example.test', { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
    );
    expect(all).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
  });
});
