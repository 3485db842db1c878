/**
 * The partner API of the chaos run (`rampflow partner-api`'s server, partner-api/server.ts), on a
 * loopback port: some customers sign up through it as a partner backend in another language would
 * (docs/integrating/http-api.md), and the checks read every partner event back through it by cursor
 * (`GET /events`), from the event store the workers append to, opened as the API opens it: a reader.
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { request } from 'undici';
import type { RampflowClient } from '../client';
import { parseEnv, PartnerEventsEnvSchema } from '../config/env';
import { payloadKeysFromEnv } from '../codec';
import { buildPartnerApi } from '../partner-api/server';
import type { PartnerEvent } from '../partner-events/catalogue';
import { openPartnerEventStore } from '../partner-events/open-store';
import type { ReceivedDelivery, TestPartnerEndpoint } from '../test/support/partner-endpoint';

export type StoredPartnerEvent = PartnerEvent & { cursor: string };
/** The most the API serves a page. */
const PAGE = 100;

/**
 * The store read on both sides of a copy of what the endpoint accepted, so each comparison holds
 * whatever the workers still deliver while the run checks: an event is recorded before it is pushed,
 * so everything in the copy is in the later read, and everything in the earlier read had its chance
 * to reach the endpoint before the copy.
 */
export interface EventStoreReading {
  storedBefore: StoredPartnerEvent[];
  delivered: ReceivedDelivery[];
  storedAfter: StoredPartnerEvent[];
}

export interface ChaosPartnerApi {
  /** `POST /journeys`; throws unless the journey is started (201 or 202), so the step is tried again. */
  signUp(journey: unknown): Promise<void>;
  /** Every partner event in the store, in its partner-wide order, page by page through `GET /events`. */
  allEvents(): Promise<StoredPartnerEvent[]>;
  /** The store, then a copy of the endpoint's deliveries, then the store again. */
  readAround(endpoint: TestPartnerEndpoint): Promise<EventStoreReading>;
  close(): Promise<void>;
}

export async function startChaosPartnerApi(
  rampflow: RampflowClient,
  eventsDatabaseUrl: string,
): Promise<ChaosPartnerApi> {
  const token = randomBytes(24).toString('hex');
  const events = await openPartnerEventStore(
    parseEnv(PartnerEventsEnvSchema, { PARTNER_EVENTS_DATABASE_URL: eventsDatabaseUrl }),
    payloadKeysFromEnv(),
    { role: 'reader' },
  );
  const app = buildPartnerApi({ token, rampflow, events, logger: pino({ level: 'silent' }) });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const api: ChaosPartnerApi = {
    async signUp(journey) {
      const answer = await request(`${url}/journeys`, { method: 'POST', headers, body: JSON.stringify(journey) });
      const text = await answer.body.text();
      if (answer.statusCode !== 201 && answer.statusCode !== 202)
        throw new Error(`POST /journeys answered ${answer.statusCode}: ${text.slice(0, 200)}`);
    },
    async allEvents() {
      const all: StoredPartnerEvent[] = [];
      let after: string | undefined;
      for (;;) {
        const answer = await request(
          `${url}/events?limit=${PAGE}${after ? `&after=${encodeURIComponent(after)}` : ''}`,
          { headers },
        );
        if (answer.statusCode !== 200)
          throw new Error(`GET /events answered ${answer.statusCode}: ${(await answer.body.text()).slice(0, 200)}`);
        const page = (await answer.body.json()) as { events: StoredPartnerEvent[]; next: string };
        all.push(...page.events);
        if (page.events.length === 0 || page.next === after) return all;
        after = page.next;
      }
    },
    async readAround(endpoint) {
      const storedBefore = await api.allEvents();
      const delivered = [...endpoint.accepted];
      return { storedBefore, delivered, storedAfter: await api.allEvents() };
    },
    async close() {
      await app.close();
      await events.close();
    },
  };
  return api;
}
