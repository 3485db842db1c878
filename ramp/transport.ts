/**
 * One signed attempt on the wire, over undici.
 *
 * Everything that varies per attempt is made here: the timestamp, the nonce and the signature. The
 * path, query and body bytes arrive fixed and are sent exactly as signed. Each attempt has its own
 * headers and body timeouts (never longer than the caller's deadline), and aborts on the caller's
 * signal; the dispatcher (a keep-alive Agent by default) is injectable so tests
 * can pass a MockAgent without touching undici's global dispatcher.
 */
import type { Dispatcher } from 'undici';
import { SIGNATURE_HEADERS, bodySha256Hex, canonicalString, signCanonical } from './signing';

export interface WireRequest {
  method: 'GET' | 'POST';
  /** The raw path as sent, base path prefix included. */
  path: string;
  /** The raw query without `?`; empty for none. */
  query: string;
  body?: {
    bytes: Uint8Array;
    contentType: string;
    /** Multipart bodies are signed with an empty hash line (interface: BODY_SHA256_HEX). */
    hashed: boolean;
  };
}

export interface WireResponse {
  status: number;
  headers: Record<string, string | undefined>;
  bodyText: string;
}

export interface TransportSettings {
  dispatcher: Dispatcher;
  /** `scheme://authority` the request goes to. */
  origin: string;
  /** The authority as sent in Host, with the port when it is not the scheme's default; also the HOST line. */
  host: string;
  apiKey: string;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  /** Called with each attempt's canonical string (for `--debug`); it holds no secret. */
  onCanonicalString?: (canonical: string) => void;
  /** A fresh nonce per attempt; a random UUID unless a test fixes it. */
  newNonce: () => string;
}

export interface SendAttemptInput {
  request: WireRequest;
  /** Signs the canonical string; the secret stays inside the caller's closure. */
  sign: (canonical: string) => string;
  timestampSeconds: string;
  /** Aborts the attempt: the caller's cancellation, or its deadline (call-limits.ts). */
  signal?: AbortSignal;
  /** What is left until the caller's deadline: the attempt's own timeouts are never longer. */
  timeLeftMs?: number;
}

export async function sendSignedAttempt(settings: TransportSettings, input: SendAttemptInput): Promise<WireResponse> {
  const { request } = input;
  const nonce = settings.newNonce();
  const canonical = canonicalString({
    method: request.method,
    host: settings.host,
    path: request.path,
    query: request.query,
    bodySha256Hex: request.body?.hashed ? bodySha256Hex(request.body.bytes) : '',
    timestamp: input.timestampSeconds,
    nonce,
  });
  settings.onCanonicalString?.(canonical);

  const headers: Record<string, string> = {
    host: settings.host,
    accept: 'application/json',
    [SIGNATURE_HEADERS.apiKey]: settings.apiKey,
    [SIGNATURE_HEADERS.timestamp]: input.timestampSeconds,
    [SIGNATURE_HEADERS.nonce]: nonce,
    [SIGNATURE_HEADERS.signature]: input.sign(canonical),
  };
  if (request.body) headers['content-type'] = request.body.contentType;

  const response = await settings.dispatcher.request({
    origin: settings.origin,
    path: request.query === '' ? request.path : `${request.path}?${request.query}`,
    method: request.method,
    headers,
    body: request.body ? Buffer.from(request.body.bytes) : null,
    headersTimeout: Math.min(settings.headersTimeoutMs, input.timeLeftMs ?? Infinity),
    bodyTimeout: Math.min(settings.bodyTimeoutMs, input.timeLeftMs ?? Infinity),
    ...(input.signal ? { signal: input.signal } : {}),
  });
  const bodyText = await response.body.text();
  return { status: response.statusCode, headers: flattenHeaders(response.headers), bodyText };
}

function flattenHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string | undefined> {
  const flat: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers))
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}

/** Signs with HMAC-SHA256; kept as a factory so the secret lives in one closure and nowhere else. */
export function hmacSigner(apiSecret: string): (canonical: string) => string {
  return (canonical) => signCanonical(apiSecret, canonical);
}
