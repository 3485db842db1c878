/**
 * PARTNER_EVENT_ENDPOINTS[_FILE] through parseEnv, as a process reads them at start: each bad
 * configuration is one line naming the variable and the endpoint, never echoing a secret or the URL.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_ENV_SCHEMAS, ConfigError, parseEnv } from '../../config/env';
import { partnerEndpointsFromEnv, PartnerEventEndpointsEnvSchema } from '../../partner-events/endpoints-env';
import { PARTNER_EVENT_TYPES } from '../../partner-events/catalogue';
import { subscribes } from '../../partner-events/endpoints';

const SECRET = `whsec_${Buffer.alloc(32, 0xab).toString('base64')}`;
const OTHER_SECRET = `whsec_${Buffer.alloc(24, 0xcd).toString('base64')}`;

function endpoints(env: Record<string, string>) {
  return partnerEndpointsFromEnv(parseEnv(PartnerEventEndpointsEnvSchema, env));
}

function inline(entries: unknown): Record<string, string> {
  return { PARTNER_EVENT_ENDPOINTS: JSON.stringify(entries) };
}

/** The one line a bad configuration is refused with. */
function refusal(env: Record<string, string>): string {
  let error: unknown;
  try {
    endpoints(env);
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(ConfigError);
  const { problems, message } = error as ConfigError;
  expect(problems).toHaveLength(1);
  for (const secret of [SECRET, OTHER_SECRET]) expect(message).not.toContain(secret.slice(6, 20));
  expect(message).not.toContain('partner.example');
  return problems[0]!;
}

const good = { name: 'acme-prod', url: 'https://partner.example/hooks/t0ken', secrets: [SECRET] };

describe('partner endpoints configuration', () => {
  it('none when unset, empty or []: partners pull', () => {
    expect(endpoints({})).toEqual([]);
    expect(endpoints({ PARTNER_EVENT_ENDPOINTS: '' })).toEqual([]);
    expect(endpoints({ PARTNER_EVENT_ENDPOINTS: '[]' })).toEqual([]);
  });

  it('reads https endpoints, a single `secret`, and expands a prefix wildcard in catalogue order', () => {
    const parsed = endpoints(
      inline([
        good,
        {
          name: 'crm',
          url: 'https://crm.partner.example/in',
          secret: OTHER_SECRET,
          events: ['payout.failed', 'journey.*'],
        },
      ]),
    );
    expect(parsed[0]).toEqual(good);
    expect(parsed[1]!.secrets).toEqual([OTHER_SECRET]);
    expect(parsed[1]!.events).toEqual(
      PARTNER_EVENT_TYPES.filter((type) => type.startsWith('journey.') || type === 'payout.failed'),
    );
    expect(subscribes(parsed[0]!, 'deposit.completed')).toBe(true);
    expect(subscribes(parsed[1]!, 'deposit.completed')).toBe(false);
    expect(subscribes(parsed[1]!, 'journey.approved')).toBe(true);
  });

  it('accepts plain http to loopback only (loopback itself only with PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS)', () => {
    for (const url of [
      'http://localhost:3000/hooks',
      'http://127.0.0.1:8790/',
      'http://127.9.8.7/x',
      'http://[::1]:8790/',
    ]) {
      expect(endpoints({ ...inline([{ ...good, url }]), PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS: 'true' })[0]!.url).toBe(
        url,
      );
    }
    for (const url of [
      'http://partner.example/hooks',
      'http://10.0.0.5/hooks',
      'http://128.0.0.1/',
      'http://localhost.partner.example/',
    ]) {
      expect(refusal(inline([{ ...good, url }]))).toMatch(
        /^PARTNER_EVENT_ENDPOINTS: endpoint 1 \(acme-prod\): url must be https \(plain http only to a loopback host/,
      );
    }
  });

  it.each([
    ['not JSON', 'PARTNER_EVENT_ENDPOINTS: is not valid JSON', `[{"name":"a","secrets":["${SECRET}"]`],
    ['not an array', 'PARTNER_EVENT_ENDPOINTS: must be a JSON array', JSON.stringify(good)],
    ['a bad name', 'endpoint 2: name must match', [good, { ...good, name: 'Acme Prod' }]],
    ['a repeated name', 'endpoint 2 (acme-prod): the name is used by an earlier endpoint', [good, good]],
    ['an unknown key', "endpoint 1 has an unknown key 'event'", [{ ...good, event: ['journey.approved'] }]],
    [
      'credentials in the URL',
      'url must not carry credentials',
      [{ ...good, url: 'https://user:pass@partner.example/hooks' }],
    ],
    ['another scheme', 'url must be https', [{ ...good, url: 'ftp://partner.example/hooks' }]],
    ['a relative URL', 'url is not a valid absolute URL', [{ ...good, url: '/hooks' }]],
    ['no secret', 'needs a signing secret', [{ name: 'acme-prod', url: good.url }]],
    ['no secrets', 'secrets is empty', [{ ...good, secrets: [] }]],
    [
      'too many secrets',
      'has 4 secrets; at most 3',
      [
        {
          ...good,
          secrets: [
            SECRET,
            OTHER_SECRET,
            `whsec_${Buffer.alloc(30, 1).toString('base64')}`,
            `whsec_${Buffer.alloc(30, 2).toString('base64')}`,
          ],
        },
      ],
    ],
    ['secret and secrets', 'give secrets or secret, not both', [{ ...good, secret: OTHER_SECRET }]],
    ['a secret without whsec_', 'secrets[1] must start with whsec_', [{ ...good, secrets: [SECRET, SECRET.slice(6)] }]],
    [
      'a secret that is not base64',
      'secrets[0] must be whsec_ followed by standard base64',
      [{ ...good, secrets: [`${SECRET.slice(0, -2)}!!`] }],
    ],
    [
      'a secret too short',
      'secret must encode 24 to 64 bytes (it encodes 16)',
      [{ ...good, secrets: undefined, secret: `whsec_${Buffer.alloc(16, 3).toString('base64')}` }],
    ],
    [
      'a secret too long',
      'must encode 24 to 64 bytes (it encodes 65)',
      [{ ...good, secrets: [`whsec_${Buffer.alloc(65, 3).toString('base64')}`] }],
    ],
    ['a repeated secret', 'secrets[1] repeats secrets[0]', [{ ...good, secrets: [SECRET, SECRET] }]],
    [
      'an unknown event type',
      "events[1] 'journey.approve' is not a known event type",
      [{ ...good, events: ['journey.approved', 'journey.approve'] }],
    ],
    [
      'an unknown prefix',
      'events[0] is not a known prefix (journey.*, deposit.*, payout.*)',
      [{ ...good, events: ['customer.*'] }],
    ],
    ['an empty events list', 'events is empty: leave it out to receive every type', [{ ...good, events: [] }]],
  ])('refuses %s with one line naming the variable', (_case, expected, entries) => {
    const line = refusal(typeof entries === 'string' ? { PARTNER_EVENT_ENDPOINTS: entries } : inline(entries));
    expect(line.startsWith('PARTNER_EVENT_ENDPOINTS: ')).toBe(true);
    expect(line).toContain(expected);
  });

  it('reads PARTNER_EVENT_ENDPOINTS_FILE, naming it and its path when it is bad; not both variables', () => {
    const folder = mkdtempSync(join(tmpdir(), 'rampflow-endpoints-'));
    const file = join(folder, 'endpoints.json');
    writeFileSync(file, JSON.stringify([good]), { mode: 0o600 });
    expect(endpoints({ PARTNER_EVENT_ENDPOINTS_FILE: file })).toEqual([good]);

    writeFileSync(file, JSON.stringify([{ ...good, secrets: [SECRET.slice(0, 20)] }]));
    expect(refusal({ PARTNER_EVENT_ENDPOINTS_FILE: file })).toBe(
      `PARTNER_EVENT_ENDPOINTS_FILE: ${file}: endpoint 1 (acme-prod): secrets[0] must be whsec_ followed by standard base64 (with = padding)`,
    );
    expect(refusal({ PARTNER_EVENT_ENDPOINTS_FILE: join(folder, 'missing.json') })).toBe(
      `PARTNER_EVENT_ENDPOINTS_FILE: cannot read ${join(folder, 'missing.json')} (ENOENT)`,
    );

    writeFileSync(file, '[]');
    expect(refusal({ PARTNER_EVENT_ENDPOINTS_FILE: file, PARTNER_EVENT_ENDPOINTS: '[]' })).toBe(
      'PARTNER_EVENT_ENDPOINTS_FILE: set PARTNER_EVENT_ENDPOINTS or PARTNER_EVENT_ENDPOINTS_FILE, not both',
    );
  });

  it('is among the variables rampflow documents', () => {
    const known = ALL_ENV_SCHEMAS.flatMap((schema) => Object.keys(schema.shape));
    expect(known).toEqual(expect.arrayContaining(['PARTNER_EVENT_ENDPOINTS', 'PARTNER_EVENT_ENDPOINTS_FILE']));
  });
});
