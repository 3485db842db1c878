/**
 * Which transport failures prove that a request never left the machine.
 *
 * A POST may be resent only then: the service has no idempotency key, so a request that might have
 * arrived must be reconciled instead. Each code below can only happen before the first request byte
 * is written: name resolution, TCP connect, and the TLS handshake (undici hands over the socket only
 * after `secureConnect`), and undici's own argument checks. Everything else (resets, timeouts after
 * connecting, closed keep-alive sockets) might have happened after the service read the request.
 */
const NEVER_LEFT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_INVALID_ARG',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

/** The error's `code`, or that of an error in its `cause` chain (undici sometimes wraps). */
export function transportErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function requestNeverLeft(error: unknown): boolean {
  const code = transportErrorCode(error);
  return code !== undefined && NEVER_LEFT_CODES.has(code);
}

/** A short, secret-free description of a transport failure for an error message. */
export function describeTransportError(error: unknown): string {
  const code = transportErrorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  return code === undefined || message.includes(code) ? message : `${code}: ${message}`;
}
