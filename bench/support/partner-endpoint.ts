/**
 * A partner's endpoint for the benchmarks: a real HTTP server on loopback that verifies every
 * delivery with the `standardwebhooks` package, as a partner's backend would (the same check as
 * test/support/partner-endpoint.ts, without the tests' scripting), answers 204, and counts what it
 * accepted: distinct event ids per stream, whether each stream's first deliveries came in sequence
 * order, and when the last new one arrived. It keeps ids, not events, so it stays small at bench sizes.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { PartnerEvent } from '../../partner-events/catalogue';
import type { PartnerEndpoint } from '../../partner-events/endpoint-types';

export interface BenchPartnerEndpoint {
  /** As PARTNER_EVENT_ENDPOINTS holds it. */
  configured: PartnerEndpoint;
  /** Distinct events accepted. */
  accepted(): number;
  /** Deliveries accepted, repeats of an id included. */
  deliveries(): number;
  /** Deliveries whose signature did not verify, and first deliveries that skipped a sequence. */
  problems(): { unverified: number; outOfOrder: number };
  /** performance.now() of the last distinct event accepted. */
  lastAcceptedAt(): number;
  /** Resolves once `count` distinct events were accepted. */
  whenAccepted(count: number): Promise<void>;
  close(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startBenchPartnerEndpoint(name = 'bench-partner'): Promise<BenchPartnerEndpoint> {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const verifier = new Webhook(secret);
  const seen = new Set<string>();
  const lastSequence = new Map<string, number>();
  let deliveries = 0;
  let unverified = 0;
  let outOfOrder = 0;
  let lastAt = 0;
  let waiting: { count: number; done: () => void } | undefined;

  const server = createServer((request, response) => {
    void (async () => {
      const body = await bodyOf(request);
      let event: PartnerEvent;
      try {
        event = verifier.verify(body, request.headers as Record<string, string>) as PartnerEvent;
      } catch {
        unverified += 1;
        response.writeHead(401).end();
        return;
      }
      deliveries += 1;
      if (!seen.has(event.id)) {
        seen.add(event.id);
        const stream = event.externalId ?? event.payoutReference ?? '';
        if (event.sequence !== (lastSequence.get(stream) ?? 0) + 1) outOfOrder += 1;
        lastSequence.set(stream, Math.max(event.sequence, lastSequence.get(stream) ?? 0));
        lastAt = performance.now();
        if (waiting && seen.size >= waiting.count) waiting.done();
      }
      response.writeHead(204).end();
    })();
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    configured: { name, url: `http://127.0.0.1:${port}/hooks`, secrets: [secret] },
    accepted: () => seen.size,
    deliveries: () => deliveries,
    problems: () => ({ unverified, outOfOrder }),
    lastAcceptedAt: () => lastAt,
    whenAccepted(count) {
      if (seen.size >= count) return Promise.resolve();
      return new Promise((done) => (waiting = { count, done }));
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The worker's environment for one endpoint. */
export const partnerEventEnvFor = (
  endpoint: BenchPartnerEndpoint,
  more: Record<string, string> = {},
): Record<string, string> => ({
  PARTNER_EVENT_ENDPOINTS: JSON.stringify([endpoint.configured]),
  // The bench's endpoint is on loopback.
  PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS: 'true',
  ...more,
});
