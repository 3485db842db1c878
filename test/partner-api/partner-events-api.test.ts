/**
 * The partner API's event routes over real HTTP on loopback, on the embedded file store written by a
 * writer beside it (as the worker would): the log by cursor, a cursor kept across a restart of the
 * API, bad cursors and parameters, the bearer token, a customer's timeline, a store that cannot be
 * reached (503), and answers that match the OpenAPI document. Temporal is not needed: these routes
 * read the store alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import Ajv2020 from 'ajv/dist/2020';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRampflowClient, type RampflowClient } from '../../client';
import { freePort } from '../../dev/ports';
import { buildOpenApiDocument } from '../../partner-api/openapi';
import { buildPartnerApi } from '../../partner-api/server';
import type { PartnerEvent } from '../../partner-events/catalogue';
import { openFilePartnerEventStore } from '../../partner-events/file-store';
import { openPostgresPartnerEventStore } from '../../partner-events/postgres-store';
import type { PartnerEventStore } from '../../partner-events/store';
import { customerEvents, customerStream, payoutEvent } from '../support/partner-events';
import { testPayloadKeys } from '../support/temporal';

const TOKEN = 'partner-events-api-test-token-0123456789';
const quiet = pino({ level: 'silent' });
const keys = testPayloadKeys();

let folder: string;
let writer: PartnerEventStore;
let connection: Connection;
let rampflow: RampflowClient;
const closers: (() => Promise<void>)[] = [];

/** The partner API as its process runs it: a reader of the store; Temporal never reached here. */
async function startApi(events: PartnerEventStore): Promise<{ base: string; app: FastifyInstance }> {
  const app = buildPartnerApi({ token: TOKEN, rampflow, events, logger: quiet });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return { base: `http://127.0.0.1:${address.port}`, app };
}

const openReader = () => openFilePartnerEventStore({ dir: folder, payloadKeys: keys, role: 'reader' });

async function get(base: string, path: string, token: string | null = TOKEN) {
  const response = await fetch(`${base}${path}`, {
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

const ids = (events: unknown) => (events as PartnerEvent[]).map((event) => event.id);

let base: string;
const ada = customerEvents('ada', 5);
const bob = customerEvents('bob', 2);
const payout = payoutEvent('inv-7');
/** Ada's first three, Bob's, the payout, Ada's last two: the partner-wide order. */
const inOrder = [...ada.slice(0, 3), ...bob, payout, ...ada.slice(3)];

beforeAll(async () => {
  folder = join(mkdtempSync(join(tmpdir(), 'rampflow-events-api-')), 'partner-events');
  writer = await openFilePartnerEventStore({ dir: folder, payloadKeys: keys, role: 'writer' });
  await writer.append(customerStream('ada'), ada.slice(0, 3));
  await writer.append(customerStream('bob'), bob);
  await writer.append('payout/inv-7', [payout]);
  await writer.append(customerStream('ada'), ada.slice(3));
  connection = Connection.lazy({ address: `127.0.0.1:${await freePort()}` });
  rampflow = await createRampflowClient({ connection, taskQueue: 'unused', payloadKeys: keys });
  const reader = await openReader();
  const api = await startApi(reader);
  base = api.base;
  closers.push(
    () => api.app.close(),
    () => reader.close(),
  );
});
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await writer?.close();
  await connection?.close();
  if (folder) rmSync(join(folder, '..'), { recursive: true, force: true });
});

describe('GET /events', () => {
  it('pages through every event in order, and a stored cursor reads on after a restart of the API', async () => {
    const first = await get(base, '/events?limit=4');
    expect(first.status).toBe(200);
    expect(ids(first.body.events)).toEqual(ids(inOrder.slice(0, 4)));
    expect(first.body.next).toBe((first.body.events as { cursor: string }[])[3]!.cursor);
    expect((first.body.events as PartnerEvent[])[0]).toEqual({ ...ada[0], cursor: expect.any(String) });

    // The partner API restarts (a new process on the same store): the cursor the partner kept still reads on.
    const reader = await openReader();
    const restarted = await startApi(reader);
    closers.push(
      () => restarted.app.close(),
      () => reader.close(),
    );
    const rest = await get(restarted.base, `/events?after=${String(first.body.next)}`);
    expect(ids(rest.body.events)).toEqual(ids(inOrder.slice(4)));

    // Nothing new: the same cursor back. Then the worker appends, and the same cursor reads just that.
    const idle = await get(restarted.base, `/events?after=${String(rest.body.next)}`);
    expect(idle.body).toEqual({ events: [], next: rest.body.next });
    const later = customerEvents('bob', 1, { from: 3 });
    await writer.append(customerStream('bob'), later);
    expect(ids((await get(restarted.base, `/events?after=${String(rest.body.next)}`)).body.events)).toEqual(ids(later));
  });

  it('answers 400 for a cursor it did not give out, or a limit outside 1..1000', async () => {
    for (const after of ['abc', '-1', '1.5', '99999999999999999999999']) {
      const answer = await get(base, `/events?after=${after}`);
      expect(answer.status, after).toBe(400);
      expect((answer.body.issues as { path: string }[])[0]!.path).toBe('after');
    }
    for (const limit of ['0', '1001', 'many']) {
      const answer = await get(base, `/events?limit=${limit}`);
      expect(answer.status, limit).toBe(400);
      expect(answer.body.issues).toEqual([{ path: 'limit', message: expect.any(String) }]);
    }
  });

  it('answers in the shape the OpenAPI document gives', async () => {
    const document = buildOpenApiDocument();
    const ajv = new Ajv2020({ strict: false });
    const validPage = ajv.compile(document.components.schemas.EventPage);
    const page = await get(base, '/events?limit=1000');
    expect(validPage(page.body), JSON.stringify(validPage.errors)).toBe(true);
    const validTimeline = ajv.compile(document.components.schemas.Timeline);
    const timeline = await get(base, '/journeys/ada/timeline');
    expect(validTimeline(timeline.body), JSON.stringify(validTimeline.errors)).toBe(true);
  });
});

describe('GET /journeys/{externalId}/timeline', () => {
  it("gives the customer's events in sequence order, a page at a time", async () => {
    const all = await get(base, '/journeys/ada/timeline');
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ events: ada, nextAfterSequence: 5 });
    const page = await get(base, '/journeys/ada/timeline?afterSequence=1&limit=2');
    expect(page.body).toEqual({ events: ada.slice(1, 3), nextAfterSequence: 3 });
    const end = await get(base, '/journeys/ada/timeline?afterSequence=5');
    expect(end.body).toEqual({ events: [], nextAfterSequence: 5 });
  });

  it('gives an empty timeline for a customer without events, and 400 for a bad externalId or parameter', async () => {
    expect((await get(base, '/journeys/nobody-yet/timeline')).body).toEqual({ events: [], nextAfterSequence: 0 });
    expect((await get(base, '/journeys/has%20space/timeline')).status).toBe(400);
    expect((await get(base, '/journeys/ada/timeline?afterSequence=-1')).status).toBe(400);
    expect((await get(base, '/journeys/ada/timeline?limit=5000')).status).toBe(400);
  });
});

describe('the event routes', () => {
  it('need the bearer token', async () => {
    for (const path of ['/events', '/journeys/ada/timeline']) {
      for (const token of [null, 'wrong-token', `${TOKEN}x`]) {
        const answer = await get(base, path, token);
        expect(answer.status, `${path} ${String(token)}`).toBe(401);
        expect(answer.headers.get('www-authenticate')).toBe('Bearer');
        expect(JSON.stringify(answer.body)).not.toContain('evt_');
      }
    }
  });

  it('answer 503 while the event store cannot be reached, so the partner retries', async () => {
    const unreachable = await openPostgresPartnerEventStore({
      connectionString: `postgres://rampflow:secret@127.0.0.1:${await freePort()}/events`,
      payloadKeys: keys,
      role: 'reader',
      connectTimeoutMs: 1_000,
    });
    const api = await startApi(unreachable);
    try {
      for (const path of ['/events', '/journeys/ada/timeline']) {
        const answer = await get(api.base, path);
        expect(answer.status, path).toBe(503);
        expect(answer.headers.get('retry-after')).toBe('5');
      }
      // A bad cursor is still a 400: it never needed the store.
      expect((await get(api.base, '/events?after=abc')).status).toBe(400);
    } finally {
      await api.app.close();
      await unreachable.close();
    }
  });

  it('are not served by an API built without a store', async () => {
    const api = buildPartnerApi({ token: TOKEN, rampflow, logger: quiet });
    const answer = await api.inject({ method: 'GET', url: '/events', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(answer.statusCode).toBe(404);
    await api.close();
  });
});
