/**
 * A test client that signs requests with its own implementation of the interface's rules (noble's
 * HMAC-SHA256 and SHA-256, not ramp/signing), so the sandbox's verifier is checked against something
 * other than itself. It sends over node:http so the raw target, Host header and body bytes are
 * exactly what the test says.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';

export interface SendOptions {
  method: 'GET' | 'POST';
  target: string;
  body?: Buffer | string;
  contentType?: string;
  /** Defaults to the sandbox's authority. */
  host?: string;
  timestamp?: string;
  nonce?: string;
  /** Replace the computed signature. */
  signature?: string;
  /** Override or remove (undefined) any header after signing. */
  headers?: Record<string, string | undefined>;
  /** Sign something other than what is sent (to model client bugs). */
  signedTarget?: string;
  signedBody?: Buffer | string;
  signedHost?: string;
}

export interface TestResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  json: any;
}

/** The interface's canonical string, written independently of ramp/signing. */
export function independentCanonical(parts: {
  method: string;
  host: string;
  target: string;
  bodyHash: string;
  timestamp: string;
  nonce: string;
}): string {
  const queryAt = parts.target.indexOf('?');
  const path = queryAt === -1 ? parts.target : parts.target.slice(0, queryAt);
  const query = queryAt === -1 ? '' : parts.target.slice(queryAt + 1);
  return `${parts.method.toUpperCase()}\n${parts.host}\n${path}\n${query}\n${parts.bodyHash}\n${parts.timestamp}\n${parts.nonce}`;
}

export function independentSignature(secret: string, canonical: string): string {
  return bytesToHex(hmac(sha256, utf8ToBytes(secret), utf8ToBytes(canonical)));
}

function bodyHash(body: Buffer | string | undefined, contentType: string | undefined): string {
  if (body === undefined || body.length === 0) return '';
  if (contentType !== undefined && contentType.startsWith('multipart/form-data')) return '';
  return bytesToHex(sha256(typeof body === 'string' ? utf8ToBytes(body) : new Uint8Array(body)));
}

export class SignedClient {
  readonly authority: string;

  constructor(
    readonly baseUrl: string,
    readonly apiKey: string,
    readonly secret: string,
  ) {
    this.authority = new URL(baseUrl).host;
  }

  send(options: SendOptions): Promise<TestResponse> {
    const timestamp = options.timestamp ?? String(Math.floor(Date.now() / 1000));
    const nonce = options.nonce ?? randomUUID();
    const host = options.host ?? this.authority;
    const canonical = independentCanonical({
      method: options.method,
      host: options.signedHost ?? host,
      target: options.signedTarget ?? options.target,
      bodyHash: bodyHash(options.signedBody ?? options.body, options.contentType),
      timestamp,
      nonce,
    });
    const headers: Record<string, string | undefined> = {
      host,
      'x-api-key': this.apiKey,
      'x-timestamp': timestamp,
      'x-nonce': nonce,
      'x-signature': options.signature ?? independentSignature(this.secret, canonical),
      ...(options.contentType === undefined ? {} : { 'content-type': options.contentType }),
      ...options.headers,
    };
    const sent = Object.fromEntries(
      Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
    const url = new URL(this.baseUrl);
    return new Promise((resolve, reject) => {
      const request = httpRequest(
        { host: url.hostname, port: url.port, method: options.method, path: options.target, headers: sent },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json: unknown;
            try {
              json = JSON.parse(text);
            } catch {
              json = undefined;
            }
            resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
          });
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      if (options.body !== undefined) request.write(options.body);
      request.end();
    });
  }

  get(target: string): Promise<TestResponse> {
    return this.send({ method: 'GET', target });
  }

  post(target: string, body: unknown): Promise<TestResponse> {
    return this.send({ method: 'POST', target, body: JSON.stringify(body), contentType: 'application/json' });
  }

  /** A request that must succeed: returns `data`, or throws with the sandbox's answer. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  async ok(method: 'GET' | 'POST', target: string, body?: unknown): Promise<any> {
    const response = method === 'GET' ? await this.get(target) : await this.post(target, body ?? {});
    if (response.status !== 200 || response.json?.status !== 'SUCCESS') {
      throw new Error(`${method} ${target} answered ${response.status}: ${response.text}`);
    }
    return response.json.data;
  }
}
