/** Loopback HTTP servers and a sample event for the partner-event suites. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PartnerEvent } from '../../partner-events/catalogue';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

export interface TestServer {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** A plain node:http server that records every request (headers and the exact body) before `answer` replies. */
export async function startServer(
  answer: (received: Received, response: ServerResponse) => void | Promise<void>,
): Promise<TestServer> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(entry);
      void Promise.resolve(answer(entry, response)).catch(() => response.destroy());
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** The webhook-* headers of a recorded request, as `standardwebhooks`' verify takes them. */
export function webhookHeaders(received: Received): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const value = received.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return headers;
}

export const KYC_LINK = 'https://kyc.example/session/very-private-link-4242';

export function sampleEvent(overrides: Partial<{ id: string; sequence: number }> = {}): PartnerEvent {
  return {
    id: overrides.id ?? 'evt_0123456789abcdefGHIJ',
    type: 'journey.kyc_required',
    timestamp: '2026-11-24T02:56:13.000Z',
    sequence: overrides.sequence ?? 1,
    externalId: 'user-42',
    data: { kycLink: KYC_LINK },
  };
}
