/**
 * One delivery attempt of a partner event to one endpoint: `POST` the event envelope as JSON, signed
 * per Standard Webhooks (signing.ts), and what the answer means (Standard Webhooks, "Delivery success
 * and failure"):
 * - 2xx: delivered;
 * - 410 Gone: the partner removed the endpoint; the caller disables it until an operator enables it;
 * - anything else, 3xx included (a redirect is never followed: the partner updates its URL instead,
 *   and a redirect must not steer signed customer data elsewhere), a timeout, a refused or reset
 *   connection: failed, and the caller retries later with the same webhook-id.
 *
 * Retrying, ordering and parking are the delivery workflow's; this makes exactly one attempt, bounded
 * in time (`timeoutMs` covers connecting, sending and the answer's headers) and in memory (a few KiB
 * of the answer are read and discarded). A failure's reason names the HTTP status or the network
 * error's code, never the URL (it may hold a token), a secret or anything from the event.
 */
import { Agent, buildConnector, errors, request, type Dispatcher } from 'undici';
import type { PartnerEvent } from './catalogue';
import type { DeliveryAttempt, PartnerEndpoint } from './endpoint-types';
import {
  guardedLookup,
  hostIsPrivate,
  PRIVATE_ADDRESS_CODE,
  PRIVATE_ADDRESS_PROBLEM,
  privateAddressError,
  type ResolveAll,
} from './endpoint-addresses';
import { createSigner } from './signing';

export const USER_AGENT = 'rampflow';
/** What is read of an answer before the connection is dropped instead of drained. */
export const MAX_ANSWER_BYTES = 4 * 1024;

export interface DeliveryOptions {
  /** The whole attempt: connection, request and the answer's status. */
  timeoutMs: number;
  /** The connection pool; one shared by the process (createDeliveryAgent) when omitted. */
  dispatcher?: Dispatcher;
  /** The attempt's time, signed as `webhook-timestamp`; the clock when omitted. */
  now?: () => Date;
  /** Stops the attempt at once (its activity reached the last moment it may send): nothing more is sent. */
  signal?: AbortSignal;
}

export interface DeliveryAgentOptions {
  /** Concurrent connections per endpoint origin: a partner's server sees at most this many at once. */
  connectionsPerOrigin?: number;
  /**
   * PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS: connect to private, loopback and link-local addresses too
   * (partner-events/endpoint-addresses.ts). Off by default: such connections are refused.
   */
  allowPrivateAddresses?: boolean;
  /** How host names are resolved before they are checked (the system resolver unless given; tests inject one). */
  resolve?: ResolveAll;
}

/**
 * The connection pool partner events go out through: keep-alive (a busy endpoint is not re-dialled
 * for each event), a few connections per origin, no redirects (undici's `request` follows none unless
 * told to). Create one per set of endpoints and close it with them; never installed globally, so no
 * other HTTP in the process shares its limits.
 */
export function createDeliveryAgent(options: DeliveryAgentOptions = {}): Agent {
  return new Agent({
    ...(options.allowPrivateAddresses ? {} : { connect: publicOnlyConnector(options.resolve) }),
    connections: options.connectionsPerOrigin ?? 4,
    // Idle sockets close before a typical server's own keep-alive timeout, so we rarely write into one it closed.
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 60_000,
  });
}

/**
 * Connects only to public addresses: a literal address in the URL is checked as it is, a host name
 * through the lookup that resolves it (every address it resolves to, at each new connection, and the
 * connection goes to an address that was checked).
 */
function publicOnlyConnector(resolve?: ResolveAll): buildConnector.connector {
  const connect = buildConnector({ lookup: guardedLookup(resolve) });
  return (options, callback) => {
    if (hostIsPrivate(options.hostname)) return callback(privateAddressError(), null);
    return connect(options, callback);
  };
}

let processAgent: Agent | undefined;

/** The process's own pool, for callers that pass none: the endpoints are read once at start. */
function defaultAgent(): Agent {
  processAgent ??= createDeliveryAgent();
  return processAgent;
}

const STOPPED = 'stopped: the delivering activity ran out of time';

/** Makes one signed delivery attempt; never throws for anything the network or the endpoint does. */
export async function deliverEvent(
  endpoint: PartnerEndpoint,
  event: PartnerEvent,
  options: DeliveryOptions,
): Promise<DeliveryAttempt> {
  // The envelope exactly as the store holds it; these bytes are signed and sent, nothing re-serialises them.
  const body = JSON.stringify(event);
  const at = options.now?.() ?? new Date();
  const headers = createSigner(endpoint.secrets)(event.id, body, at);
  if (options.signal?.aborted) return { outcome: 'failed', reason: STOPPED };
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), options.timeoutMs);
  const stop = () => abort.abort();
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    const answer = await request(endpoint.url, {
      method: 'POST',
      dispatcher: options.dispatcher ?? defaultAgent(),
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...headers },
      body,
      signal: abort.signal,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    // The status is the answer; the body is only read (up to a few KiB) so the connection can be reused.
    await answer.body.dump({ limit: MAX_ANSWER_BYTES, signal: abort.signal }).catch(() => undefined);
    return classify(answer.statusCode);
  } catch (error) {
    if (options.signal?.aborted) return { outcome: 'failed', reason: STOPPED };
    return {
      outcome: 'failed',
      reason: abort.signal.aborted ? `no answer within ${options.timeoutMs} ms` : networkReason(error),
    };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', stop);
  }
}

function classify(status: number): DeliveryAttempt {
  if (status >= 200 && status <= 299) return { outcome: 'delivered', status };
  if (status === 410) return { outcome: 'gone', status: 410 };
  if (status >= 300 && status <= 399)
    return {
      outcome: 'failed',
      status,
      reason: `HTTP ${status}: a redirect, not followed (configure the endpoint's final URL)`,
    };
  return { outcome: 'failed', status, reason: `HTTP ${status}` };
}

/** The network error's kind, by code only: undici's and Node's messages can name the host and path. */
function networkReason(error: unknown): string {
  if (
    error instanceof errors.HeadersTimeoutError ||
    error instanceof errors.BodyTimeoutError ||
    error instanceof errors.ConnectTimeoutError
  )
    return 'no answer in time';
  const code = codeOf(error);
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if (code === PRIVATE_ADDRESS_CODE) return `refused: ${PRIVATE_ADDRESS_PROBLEM}`;
  return code ? `connection failed (${code})` : 'connection failed';
}

function codeOf(error: unknown): string | undefined {
  for (
    let current: unknown = error, depth = 0;
    current instanceof Error && depth < 4;
    current = current.cause, depth += 1
  ) {
    const code = (current as NodeJS.ErrnoException).code;
    // Only a code's own characters: a code is never customer data, but it should not carry text either.
    if (typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code)) return code;
  }
  return undefined;
}
