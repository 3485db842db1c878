/**
 * A partner's endpoint for tests: a real HTTP server on loopback that verifies every delivery with
 * the `standardwebhooks` package (the partner's own library, written by others) and records what it
 * accepted. Tests script its answers: down (connection refused), failing with a status, slow, gone.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { PartnerEvent } from '../../partner-events/catalogue';

export interface ReceivedDelivery {
  webhookId: string;
  event: PartnerEvent;
}

/**
 * What the endpoint answers next: 2xx accepts (after verifying), anything else refuses; a 3xx names
 * `location` (a closed port's URL unless given).
 */
export type EndpointBehaviour = { status: number; delayMs?: number; location?: string };

export interface TestPartnerEndpoint {
  url: string;
  secret: string;
  /** Deliveries verified and accepted, in arrival order (duplicates included). */
  accepted: ReceivedDelivery[];
  /** Every attempt's webhook-id, accepted or not. */
  attempts: string[];
  /** Deliveries whose signature did not verify. */
  rejected: number;
  /** The most deliveries it was answering at one time: above 1, two senders overlapped. */
  mostAtOnce: number;
  /** Sets what every later delivery is answered, until set again. */
  answer(behaviour: EndpointBehaviour): void;
  /** Stops listening (deliveries get connection refused) or listens again on the same port. */
  down(): Promise<void>;
  up(): Promise<void>;
  /** Accepted events of one stream, first delivery of each id only, in arrival order. */
  eventsOf(externalId: string): PartnerEvent[];
  close(): Promise<void>;
}

export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startTestPartnerEndpoint(options: { secret?: string } = {}): Promise<TestPartnerEndpoint> {
  const secret = options.secret ?? newWebhookSecret();
  const verifier = new Webhook(secret);
  let behaviour: EndpointBehaviour = { status: 204 };
  let server: Server | undefined;
  let port = 0;
  let atOnce = 0;

  const endpoint: TestPartnerEndpoint = {
    url: '',
    secret,
    accepted: [],
    attempts: [],
    rejected: 0,
    mostAtOnce: 0,
    answer(next) {
      behaviour = next;
    },
    async down() {
      const closing = server;
      server = undefined;
      if (closing) {
        closing.closeAllConnections();
        await new Promise<void>((resolve) => closing.close(() => resolve()));
      }
    },
    async up() {
      server = createServer((request, response) => {
        atOnce += 1;
        endpoint.mostAtOnce = Math.max(endpoint.mostAtOnce, atOnce);
        response.on('close', () => (atOnce -= 1));
        void (async () => {
          const body = await bodyOf(request);
          const webhookId = String(request.headers['webhook-id']);
          endpoint.attempts.push(webhookId);
          const { status, delayMs, location } = behaviour;
          if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
          let event: PartnerEvent;
          try {
            event = verifier.verify(body, request.headers as Record<string, string>) as PartnerEvent;
          } catch {
            endpoint.rejected += 1;
            response.writeHead(401).end();
            return;
          }
          if (status >= 200 && status < 300) endpoint.accepted.push({ webhookId, event });
          response
            .writeHead(
              status,
              status >= 300 && status < 400 ? { location: location ?? 'http://127.0.0.1:9/elsewhere' } : {},
            )
            .end();
        })();
      });
      await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', () => resolve()));
      port = (server.address() as AddressInfo).port;
      endpoint.url = `http://127.0.0.1:${port}/hooks`;
    },
    eventsOf(externalId) {
      const seen = new Set<string>();
      return endpoint.accepted
        .map((delivery) => delivery.event)
        .filter((event) => event.externalId === externalId && !seen.has(event.id) && seen.add(event.id));
    },
    async close() {
      await endpoint.down();
    },
  };
  await endpoint.up();
  return endpoint;
}
