/**
 * The partner's endpoints, as configured (docs/integrating/partner-events.md): a JSON array of
 * `{name, url, secrets | secret, events?}`, given inline in PARTNER_EVENT_ENDPOINTS or, better for
 * secrets (nothing in `ps`, in a shell history or in a compose file), in the file that
 * PARTNER_EVENT_ENDPOINTS_FILE names. config/env.ts reads the variables; this module checks the text.
 *
 * A bad configuration stops the process at start with one line: the first problem, naming the
 * endpoint by position and (once its name is known to be valid) by name. Neither a secret nor the URL
 * is ever echoed: partners put tokens in paths, and a secret pasted into the wrong field would
 * otherwise land in a log.
 */
import { PARTNER_EVENT_TYPES, type PartnerEventType } from './catalogue';
import { hostIsPrivate, PRIVATE_ADDRESS_PROBLEM } from './endpoint-addresses';
import type { PartnerEndpoint } from './endpoint-types';

export const ENDPOINT_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
/** Two cover a rotation (the new secret and the old one); the third leaves room for a slow partner. */
export const MAX_SECRETS = 3;
/** Standard Webhooks: a symmetric secret is at least 24 bytes; 64 is plenty for HMAC-SHA256. */
export const SECRET_BYTES = { min: 24, max: 64 } as const;
export const SECRET_PREFIX = 'whsec_';

const KNOWN_KEYS = new Set(['name', 'url', 'secrets', 'secret', 'events']);
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export type EndpointsResult = { ok: true; endpoints: PartnerEndpoint[] } | { ok: false; problem: string };

/** Why a `whsec_` secret is unusable, or undefined when it is fine. Never mentions the value. */
export function secretProblem(secret: unknown): string | undefined {
  if (typeof secret !== 'string' || !secret.startsWith(SECRET_PREFIX)) return `must start with ${SECRET_PREFIX}`;
  const encoded = secret.slice(SECRET_PREFIX.length);
  // Canonical, padded, standard base64: what every Standard Webhooks library decodes the same way.
  if (!CANONICAL_BASE64.test(encoded)) return `must be ${SECRET_PREFIX} followed by standard base64 (with = padding)`;
  const bytes = Buffer.from(encoded, 'base64').length;
  if (bytes < SECRET_BYTES.min || bytes > SECRET_BYTES.max)
    return `must encode ${SECRET_BYTES.min} to ${SECRET_BYTES.max} bytes (it encodes ${bytes})`;
  return undefined;
}

/** Whether a URL may receive partner events: https anywhere, plain http only on this machine. */
export function urlProblem(text: unknown): string | undefined {
  if (typeof text !== 'string') return 'url must be a string';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'url is not a valid absolute URL';
  }
  if (url.username !== '' || url.password !== '')
    return 'url must not carry credentials (user:password@): deliveries are authenticated by their signature';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') {
    // Events carry customer data (KYC links, account details): in clear text only over loopback.
    return isLoopbackHost(url.hostname)
      ? undefined
      : 'url must be https (plain http only to a loopback host: localhost, 127.0.0.0/8, [::1])';
  }
  return 'url must be https (plain http only to a loopback host)';
}

/** `URL.hostname` of a loopback host; the URL parser has already normalised 127.1, 0x7f.0.0.1 and the like. */
export function isLoopbackHost(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true;
  const octets = hostname.split('.');
  return (
    octets.length === 4 &&
    octets[0] === '127' &&
    octets.every((octet) => /^\d{1,3}$/.test(octet) && Number(octet) <= 255)
  );
}

/** A subscription entry: a known type, or a prefix wildcard such as `journey.*`, expanded to the types it covers. */
function expandEvents(entries: unknown): PartnerEventType[] | string {
  if (!Array.isArray(entries)) return 'events must be an array of event types';
  if (entries.length === 0) return 'events is empty: leave it out to receive every type';
  const types = new Set<PartnerEventType>();
  for (const [index, entry] of entries.entries()) {
    if (typeof entry !== 'string') return `events[${index}] must be a string`;
    if (entry.endsWith('.*')) {
      const prefix = entry.slice(0, -1);
      const covered = PARTNER_EVENT_TYPES.filter((type) => type.startsWith(prefix));
      if (covered.length === 0) return `events[${index}] is not a known prefix (${knownPrefixes().join(', ')})`;
      covered.forEach((type) => types.add(type));
    } else if ((PARTNER_EVENT_TYPES as string[]).includes(entry)) {
      types.add(entry as PartnerEventType);
    } else {
      // An event type is no secret, but a typo in a long list is found faster when it is named.
      return `events[${index}] '${entry.slice(0, 40)}' is not a known event type (see docs/reference/partner-events.md)`;
    }
  }
  // Catalogue order, so two configurations that mean the same compare equal.
  return PARTNER_EVENT_TYPES.filter((type) => types.has(type));
}

function knownPrefixes(): string[] {
  return [...new Set(PARTNER_EVENT_TYPES.map((type) => `${type.split('.')[0]}.*`))];
}

function secretsOf(entry: Record<string, unknown>): string[] | string {
  if ('secrets' in entry && 'secret' in entry) return 'give secrets or secret, not both';
  const secrets = 'secret' in entry ? [entry.secret] : entry.secrets;
  if (secrets === undefined) return `needs a signing secret (secrets: ["${SECRET_PREFIX}..."])`;
  if (!Array.isArray(secrets)) return 'secrets must be an array of strings';
  if (secrets.length === 0) return 'secrets is empty: at least one is needed';
  if (secrets.length > MAX_SECRETS)
    return `has ${secrets.length} secrets; at most ${MAX_SECRETS} (a rotation needs two)`;
  for (const [index, secret] of secrets.entries()) {
    const problem = secretProblem(secret);
    if (problem) return `${'secret' in entry ? 'secret' : `secrets[${index}]`} ${problem}`;
    if (secrets.indexOf(secret) !== index) return `secrets[${index}] repeats secrets[${secrets.indexOf(secret)}]`;
  }
  return secrets as string[];
}

function parseEndpoint(entry: unknown, index: number, names: Set<string>): PartnerEndpoint | string {
  const at = `endpoint ${index + 1}`;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
    return `${at} must be an object {name, url, secrets, events?}`;
  const fields = entry as Record<string, unknown>;
  // An unknown key is most often a typo (`event`, `secrect`) that would silently change what is sent.
  const unknown = Object.keys(fields).find((key) => !KNOWN_KEYS.has(key));
  if (unknown !== undefined)
    return `${at} has an unknown key '${unknown.slice(0, 40)}' (known: ${[...KNOWN_KEYS].join(', ')})`;
  const { name } = fields;
  if (typeof name !== 'string' || !ENDPOINT_NAME.test(name)) return `${at}: name must match ${ENDPOINT_NAME.source}`;
  const label = `${at} (${name})`;
  if (names.has(name)) return `${label}: the name is used by an earlier endpoint`;
  const badUrl = urlProblem(fields.url);
  if (badUrl) return `${label}: ${badUrl}`;
  const secrets = secretsOf(fields);
  if (typeof secrets === 'string') return `${label}: ${secrets}`;
  let events: PartnerEventType[] | undefined;
  if (fields.events !== undefined) {
    const expanded = expandEvents(fields.events);
    if (typeof expanded === 'string') return `${label}: ${expanded}`;
    events = expanded;
  }
  names.add(name);
  return { name, url: fields.url as string, secrets, ...(events ? { events } : {}) };
}

/** Checks the configuration's JSON text; an empty array means no endpoints (partners pull). */
export function parsePartnerEndpoints(text: string): EndpointsResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // JSON.parse's own message quotes the text around the error, which may be a secret.
    return { ok: false, problem: 'is not valid JSON: expected an array of {name, url, secrets, events?}' };
  }
  if (!Array.isArray(value)) return { ok: false, problem: 'must be a JSON array of {name, url, secrets, events?}' };
  const names = new Set<string>();
  const endpoints: PartnerEndpoint[] = [];
  for (const [index, entry] of value.entries()) {
    const endpoint = parseEndpoint(entry, index, names);
    if (typeof endpoint === 'string') return { ok: false, problem: endpoint };
    endpoints.push(endpoint);
  }
  return { ok: true, endpoints };
}

/**
 * The first endpoint whose URL names a private, loopback or link-local host (a literal address, or
 * `localhost`), as a configuration problem; refused unless PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS is set.
 * A host name is checked at each connection instead (partner-events/deliver.ts).
 */
export function privateEndpointProblem(endpoints: readonly PartnerEndpoint[]): string | undefined {
  const index = endpoints.findIndex((endpoint) => hostIsPrivate(new URL(endpoint.url).hostname));
  if (index === -1) return undefined;
  return `endpoint ${index + 1} (${endpoints[index]!.name}): url: ${PRIVATE_ADDRESS_PROBLEM}`;
}

/** Whether an endpoint receives events of this type. */
export function subscribes(endpoint: PartnerEndpoint, type: PartnerEventType): boolean {
  return endpoint.events === undefined || endpoint.events.includes(type);
}
