/**
 * Request signing for the partner ramp service (interface: "Authentication").
 *
 * The signature covers exactly the bytes on the wire, so callers pass the raw path, the raw query
 * string and the exact body bytes they send. Nothing here re-orders, re-encodes or re-serialises.
 * Shared by the client (to sign) and the sandbox (to verify).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export interface CanonicalParts {
  /** HTTP method; upper-cased here. */
  method: string;
  /** The authority as sent in the Host header, port included when it is not the scheme's default. */
  host: string;
  /** The request path without the query string, exactly as sent. */
  path: string;
  /** The raw query string without the leading `?`, exactly as in the URL; empty for none. */
  query: string;
  /** Lowercase hex SHA-256 of the body bytes sent; empty for no body and for multipart bodies. */
  bodySha256Hex: string;
  /** Unix time in seconds, as sent in X-Timestamp. */
  timestamp: string;
  /** As sent in X-Nonce. */
  nonce: string;
}

export const SIGNATURE_HEADERS = {
  apiKey: 'x-api-key',
  timestamp: 'x-timestamp',
  nonce: 'x-nonce',
  signature: 'x-signature',
} as const;

/** The seven values joined by a line feed, with no trailing line feed. */
export function canonicalString(parts: CanonicalParts): string {
  return [
    parts.method.toUpperCase(),
    parts.host,
    parts.path,
    parts.query,
    parts.bodySha256Hex,
    parts.timestamp,
    parts.nonce,
  ].join('\n');
}

/** Lowercase hex SHA-256 of the exact body bytes, or '' when there is no body. */
export function bodySha256Hex(body: Uint8Array | string | undefined): string {
  if (body === undefined || body.length === 0) return '';
  return createHash('sha256').update(body).digest('hex');
}

/** Lowercase hex HMAC-SHA256 over the UTF-8 canonical string, keyed with the API secret. */
export function signCanonical(secret: string, canonical: string): string {
  return createHmac('sha256', secret).update(canonical, 'utf8').digest('hex');
}

/** Constant-time comparison of an expected and a presented signature (both hex strings). */
export function signaturesMatch(expectedHex: string, presented: string): boolean {
  const expected = Buffer.from(expectedHex, 'utf8');
  const given = Buffer.from(presented, 'utf8');
  // Compare against itself when lengths differ so the time taken does not depend on the input.
  return (
    timingSafeEqual(expected, given.length === expected.length ? given : expected) && given.length === expected.length
  );
}

/** Splits a raw request target (`/path?query`) into the PATH and QUERY lines, untouched. */
export function splitRequestTarget(target: string): { path: string; query: string } {
  const at = target.indexOf('?');
  return at === -1 ? { path: target, query: '' } : { path: target.slice(0, at), query: target.slice(at + 1) };
}
