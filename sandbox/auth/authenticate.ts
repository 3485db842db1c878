/**
 * Request authentication (interface: "Authentication"), in a fixed order so that the cheap checks
 * come first and nothing is remembered for a request that is not genuine:
 *   1. the partner's source-IP whitelist (the partner named by X-API-Key, when that key is known),
 *   2. header presence and syntax,
 *   3. the timestamp within the accepted skew,
 *   4. the key lookup,
 *   5. the canonical string rebuilt from the raw request target and the raw body bytes,
 *   6. a constant-time comparison of the signatures,
 *   7. and only then the nonce: a reused one is rejected, a fresh one recorded. Checking it last
 *      means a forged request cannot burn a nonce that a genuine request is about to use.
 * Skew and nonce window use the real wall clock, never the virtual clock: clients sign with theirs.
 */
import {
  SIGNATURE_HEADERS,
  bodySha256Hex,
  canonicalString,
  signCanonical,
  signaturesMatch,
  splitRequestTarget,
} from '../../ramp/signing';
import { SandboxError } from '../http/errors';
import { normaliseIp } from './ip';
import { NonceStore } from './nonce-store';

export interface PartnerCredential {
  apiKey: string;
  apiSecret: string;
  /** Keys that name the same partner share its records (the interface allows several active key pairs). */
  partnerId: string;
}

export interface SignedRequest {
  method: string;
  /** The Host header as sent. */
  host: string | undefined;
  /** The raw request target (`/path?query`), as on the request line. */
  rawTarget: string;
  rawBody: Buffer;
  contentType: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  sourceIp: string;
}

export interface Authenticated {
  partnerId: string;
  apiKey: string;
}

export interface AuthenticatorOptions {
  credentials: PartnerCredential[];
  acceptedSkewSeconds: number;
  /** Answers a failed signature with the canonical string the server built (never in production). */
  debug: boolean;
  ipWhitelistOf: (partnerId: string) => readonly string[];
  wallClock?: () => number;
}

function unauthorised(message: string, details: Record<string, unknown> = {}): SandboxError {
  return new SandboxError('UNAUTHORISED', message, details);
}

function singleHeader(headers: SignedRequest['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The body hash line: empty for no body and for multipart bodies (interface: "Canonical string"). */
function bodyHashLine(request: SignedRequest): string {
  if (request.contentType !== undefined && /^multipart\/form-data\b/i.test(request.contentType)) return '';
  return bodySha256Hex(request.rawBody);
}

export class Authenticator {
  private readonly byKey: Map<string, PartnerCredential>;
  private readonly nonces: NonceStore;
  private readonly wallClock: () => number;

  constructor(private readonly options: AuthenticatorOptions) {
    this.byKey = new Map(options.credentials.map((credential) => [credential.apiKey, credential]));
    this.nonces = new NonceStore(2 * options.acceptedSkewSeconds * 1000);
    this.wallClock = options.wallClock ?? Date.now;
  }

  authenticate(request: SignedRequest): Authenticated {
    const headers = request.headers;
    const apiKey = singleHeader(headers, SIGNATURE_HEADERS.apiKey);

    // 1. The whitelist belongs to a partner, so it can only be applied once the key names one.
    const claimed = apiKey === undefined ? undefined : this.byKey.get(apiKey);
    if (claimed !== undefined) {
      const whitelist = this.options.ipWhitelistOf(claimed.partnerId);
      if (whitelist.length > 0 && !whitelist.includes(normaliseIp(request.sourceIp))) {
        throw unauthorised(`source IP ${normaliseIp(request.sourceIp)} is not in the partner's IP whitelist`);
      }
    }

    // 2. Presence and syntax.
    const timestamp = singleHeader(headers, SIGNATURE_HEADERS.timestamp);
    const nonce = singleHeader(headers, SIGNATURE_HEADERS.nonce);
    const signature = singleHeader(headers, SIGNATURE_HEADERS.signature);
    const missing = (
      [
        ['X-API-Key', apiKey],
        ['X-Timestamp', timestamp],
        ['X-Nonce', nonce],
        ['X-Signature', signature],
      ] as const
    )
      .filter(([, value]) => value === undefined || value === '')
      .map(([name]) => name);
    if (
      missing.length > 0 ||
      apiKey === undefined ||
      timestamp === undefined ||
      nonce === undefined ||
      signature === undefined
    ) {
      throw unauthorised(`missing header${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`);
    }
    if (/^\d{13}$/.test(timestamp)) {
      throw unauthorised('X-Timestamp has 13 digits: it looks like milliseconds; send Unix time in seconds');
    }
    if (!/^\d{1,12}$/.test(timestamp)) {
      throw unauthorised('X-Timestamp must be Unix time in whole seconds');
    }
    if (nonce.length > 128) {
      throw unauthorised('X-Nonce is longer than 128 characters');
    }
    if (!/^[0-9a-f]{64}$/.test(signature)) {
      throw unauthorised('X-Signature must be 64 lowercase hex characters (HMAC-SHA256)');
    }
    if (request.host === undefined || request.host === '') {
      throw unauthorised('missing Host header, which the signature covers');
    }

    // 3. Skew, against the wall clock.
    const wallNowMs = this.wallClock();
    const skewSeconds = Math.abs(wallNowMs / 1000 - Number(timestamp));
    if (skewSeconds > this.options.acceptedSkewSeconds) {
      throw unauthorised(
        `X-Timestamp is ${Math.round(skewSeconds)} s away from the server's time; at most ${this.options.acceptedSkewSeconds} s is accepted`,
      );
    }

    // 4. Key lookup.
    if (claimed === undefined) throw unauthorised('unknown API key');

    // 5 and 6. Canonical string and a constant-time comparison.
    const { path, query } = splitRequestTarget(request.rawTarget);
    const canonical = canonicalString({
      method: request.method,
      host: request.host,
      path,
      query,
      bodySha256Hex: bodyHashLine(request),
      timestamp,
      nonce,
    });
    if (!signaturesMatch(signCanonical(claimed.apiSecret, canonical), signature)) {
      throw unauthorised('signature does not match', this.options.debug ? { canonicalString: canonical } : {});
    }

    // 7. The nonce, only for a genuine request.
    if (this.nonces.has(apiKey, nonce, wallNowMs)) throw unauthorised('X-Nonce has already been used');
    this.nonces.record(apiKey, nonce, wallNowMs);

    return { partnerId: claimed.partnerId, apiKey };
  }
}
