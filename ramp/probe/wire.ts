/**
 * The probe's requests: signed as the client signs them (transport.ts), but with what the probe
 * needs to vary on purpose: the timestamp's distance from the service's clock, a nonce sent twice,
 * a signature that does not match. Each answer comes back with the time it took and the offset of
 * the service's `Date` from the local clock. Nothing here logs; the secret stays in the signer.
 */
import { randomUUID } from 'node:crypto';
import { Agent } from 'undici';
import { hmacSigner, sendSignedAttempt, type TransportSettings, type WireResponse } from '../transport';

export interface ProbeRequest {
  method: 'GET' | 'POST';
  path: string;
  query?: string;
  /** A JSON body, sent as these exact bytes. */
  json?: string;
  /** Seconds to move X-Timestamp away from the service's time (negative: in the past). */
  timestampShiftSeconds?: number;
  /** The nonce to send (default a fresh one): the same value twice is a replay. */
  nonce?: string;
  /** Sign with a signature that cannot match. */
  badSignature?: boolean;
}

export interface ProbeAnswer extends WireResponse {
  elapsedMs: number;
  /** The service's `Date` minus the local time at the answer's midpoint, when it sent one. */
  offsetMs: number | undefined;
  /** The body, when it is a JSON object. */
  json: Record<string, unknown> | undefined;
}

export class ProbeWire {
  readonly #agent = new Agent({ keepAliveTimeout: 4_000 });
  readonly #settings: TransportSettings;
  readonly #sign: (canonical: string) => string;
  readonly #basePath: string;
  /** The service's clock minus ours, learnt from the answers' `Date` (one-second resolution). */
  offsetMs = 0;

  constructor(baseUrl: string, apiKey: string, apiSecret: string) {
    const base = new URL(baseUrl);
    this.#basePath = base.pathname.replace(/\/+$/, '');
    this.#sign = hmacSigner(apiSecret);
    this.#settings = {
      dispatcher: this.#agent,
      origin: base.origin,
      host: base.host,
      apiKey,
      headersTimeoutMs: 15_000,
      bodyTimeoutMs: 15_000,
      newNonce: randomUUID,
    };
  }

  async send(request: ProbeRequest): Promise<ProbeAnswer> {
    const nonce = request.nonce ?? randomUUID();
    const serviceNowMs = Date.now() + this.offsetMs;
    const timestampSeconds = String(Math.floor(serviceNowMs / 1000) + (request.timestampShiftSeconds ?? 0));
    const sign = request.badSignature
      ? (canonical: string) => this.#sign(canonical).replace(/^./, (first) => (first === '0' ? '1' : '0'))
      : this.#sign;
    const startedAt = Date.now();
    const answer = await sendSignedAttempt(
      { ...this.#settings, newNonce: () => nonce },
      {
        request: {
          method: request.method,
          path: `${this.#basePath}${request.path}`,
          query: request.query ?? '',
          ...(request.json !== undefined
            ? { body: { bytes: Buffer.from(request.json, 'utf8'), contentType: 'application/json', hashed: true } }
            : {}),
        },
        sign,
        timestampSeconds,
      },
    );
    const endedAt = Date.now();
    const dateMs = answer.headers.date === undefined ? Number.NaN : Date.parse(answer.headers.date);
    return {
      ...answer,
      elapsedMs: endedAt - startedAt,
      // Date counts whole seconds: the service's second began up to 1 s before it said so.
      offsetMs: Number.isNaN(dateMs) ? undefined : dateMs + 500 - (startedAt + endedAt) / 2,
      json: parseObject(answer.bodyText),
    };
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The envelope's `status` of an answer, when it has one. */
export function envelopeStatus(answer: ProbeAnswer): string | undefined {
  const status = answer.json?.status;
  return typeof status === 'string' ? status : undefined;
}

/** Whether the service answered as it does to a request it accepted. */
export function accepted(answer: ProbeAnswer): boolean {
  return answer.status >= 200 && answer.status < 300 && envelopeStatus(answer) === 'SUCCESS';
}

/** A refusal of the credentials, in either of the forms rampflow reads (response-interpretation.ts). */
export function refusedAsUnauthorised(answer: ProbeAnswer): boolean {
  return envelopeStatus(answer) === 'UNAUTHORISED' || answer.status === 401;
}

/** How an answer is described in a report line: its status and the envelope's, never its message or data. */
export function describeAnswer(answer: ProbeAnswer): string {
  const status = envelopeStatus(answer);
  return `HTTP ${answer.status}${status === undefined ? '' : ` ${status}`}`;
}
