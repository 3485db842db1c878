/**
 * A loopback HTTP server standing in for the ramp service in tests. It records every request as it
 * arrived on the wire and checks the signature with its own HMAC (from @noble/hashes, not the code
 * under test), so a test fails if the client signs anything other than what it sends.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';

export interface ReceivedRequest {
  method: string;
  /** The request target exactly as it arrived. */
  target: string;
  path: string;
  query: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The canonical string this server rebuilt from the request as received. */
  canonical: string;
  signatureValid: boolean;
}

export type Reply =
  | { status?: number; headers?: Record<string, string>; json?: unknown; text?: string }
  | { destroySocket: true }
  | { neverAnswer: true };

export interface SignedServer {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** TCP connections accepted so far (keep-alive reuses one). */
  connectionCount(): number;
  close(): Promise<void>;
}

export function independentCanonical(
  method: string,
  headers: IncomingHttpHeaders,
  target: string,
  body: Buffer,
): string {
  const at = target.indexOf('?');
  const path = at === -1 ? target : target.slice(0, at);
  const query = at === -1 ? '' : target.slice(at + 1);
  const multipart = String(headers['content-type'] ?? '').startsWith('multipart/form-data');
  const bodyHash = body.length === 0 || multipart ? '' : bytesToHex(sha256(body));
  return [
    method,
    String(headers.host),
    path,
    query,
    bodyHash,
    String(headers['x-timestamp']),
    String(headers['x-nonce']),
  ].join('\n');
}

export function independentSignature(secret: string, canonical: string): string {
  return bytesToHex(hmac(sha256, utf8ToBytes(secret), utf8ToBytes(canonical)));
}

export async function startSignedServer(
  secret: string,
  handler: (request: ReceivedRequest, index: number) => Reply | Promise<Reply>,
): Promise<SignedServer> {
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((incoming, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const target = incoming.url ?? '';
      const canonical = independentCanonical(incoming.method ?? '', incoming.headers, target, body);
      const at = target.indexOf('?');
      const received: ReceivedRequest = {
        method: incoming.method ?? '',
        target,
        path: at === -1 ? target : target.slice(0, at),
        query: at === -1 ? '' : target.slice(at + 1),
        headers: incoming.headers,
        body,
        canonical,
        signatureValid: incoming.headers['x-signature'] === independentSignature(secret, canonical),
      };
      requests.push(received);
      void Promise.resolve(handler(received, requests.length - 1)).then((reply) => {
        if ('destroySocket' in reply) return incoming.socket.destroy();
        if ('neverAnswer' in reply) return;
        const text = reply.text ?? JSON.stringify(reply.json ?? { status: 'SUCCESS', data: null });
        response.writeHead(reply.status ?? 200, {
          'content-type': reply.text === undefined ? 'application/json' : 'text/plain',
          ...reply.headers,
        });
        response.end(text);
      });
    });
  });
  server.on('connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    connectionCount: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A body in the service's success envelope. */
export function success(data: unknown): Reply {
  return { json: { status: 'SUCCESS', data } };
}

/** A 422 failure in the service's envelope. */
export function failure(status: string, message: string): Reply {
  return { status: 422, json: { status, message } };
}
