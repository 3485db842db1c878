/**
 * Faults of partner event delivery (issue 24), against the worker as operators run it (`rampflow
 * worker`, a child process: its store in PARTNER_EVENTS_DIR, its endpoint in PARTNER_EVENT_ENDPOINTS)
 * and a real endpoint on loopback that verifies every delivery with the `standardwebhooks` package.
 *
 * Each case records customers' streams in the store before the worker opens it (the store has one
 * writer), then starts the streams' delivery workflows by signal-with-start, exactly as the publish
 * activity hands a stream over when its endpoint failed: the path that carries a backlog. Then it
 * breaks something: the worker killed while the endpoint is slow to answer, the endpoint refusing
 * connections for "an hour", the endpoint answering with redirects. What must hold: nothing lost,
 * order kept per customer (the endpoint never gets an event before every earlier one of its stream),
 * and a delivery attempted again carries the same webhook-id, so the partner dedupes it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PartnerEvent, PartnerEventStream } from '../../partner-events/catalogue';
import { openFilePartnerEventStore } from '../../partner-events/file-store';
import type { partnerEventDelivery } from '../../workflows/partner-events/delivery';
import {
  morePartnerEventsSignal,
  partnerEventDeliveryWorkflowId,
  type MorePartnerEvents,
} from '../../workflows/partner-events/messages';
import { startTestPartnerEndpoint, type TestPartnerEndpoint } from '../support/partner-endpoint';
import { testPayloadKeys } from '../support/temporal';
import { startFaultStack, type FaultStack } from './support/fault-stack';
import { pause, until } from './support/until';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process';

const ENDPOINT = 'partner';
/** Three days scaled to six minutes: the deliveries' backoff tops out at 5 s (an hour, scaled alike). */
const RETRY_SECONDS = 360;
const SCALED_HOUR_MS = (RETRY_SECONDS * 1000) / 72;

let stack: FaultStack;
let cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  stack = await startFaultStack({});
});
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});
afterAll(async () => {
  await stack?.close();
});

interface Case {
  endpoint: TestPartnerEndpoint;
  /** Each customer's events, as recorded. */
  streams: Map<string, PartnerEvent[]>;
  worker(): WorkerProcess;
  startWorker(): Promise<void>;
  startDeliveries(): Promise<void>;
}

function eventsOf(externalId: string, count: number): PartnerEvent[] {
  const at = new Date().toISOString();
  return Array.from({ length: count }, (_, index) => ({
    id: `evt_${externalId.replace(/[^A-Za-z0-9]/g, '')}${String(index + 1).padStart(5, '0')}${'x'.repeat(8)}`,
    type: 'deposit.received',
    timestamp: at,
    sequence: index + 1,
    externalId,
    data: { depositId: `dep-${index + 1}`, kind: 'ONRAMP', amount: '10.00', currency: 'AUD' },
  }));
}

const streamOf = (externalId: string): PartnerEventStream => `customer/${externalId}`;

/** Records the streams in a fresh store folder, and readies a worker on it with the endpoint configured. */
async function setUp(name: string, customers: number, eventsEach: number): Promise<Case> {
  const dir = mkdtempSync(join(tmpdir(), 'rampflow-fault-partner-events-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const endpoint = await startTestPartnerEndpoint();
  cleanups.push(() => endpoint.close());
  const streams = new Map(
    Array.from({ length: customers }, (_, index) => `${name}${index}`).map((externalId) => [
      externalId,
      eventsOf(externalId, eventsEach),
    ]),
  );
  const store = await openFilePartnerEventStore({ dir, payloadKeys: testPayloadKeys(), role: 'writer' });
  try {
    for (const [externalId, events] of streams) await store.append(streamOf(externalId), events);
  } finally {
    await store.close();
  }
  let worker: WorkerProcess | undefined;
  cleanups.push(async () => worker?.stop());
  const env = {
    PARTNER_EVENTS_DIR: dir,
    PARTNER_EVENT_ENDPOINTS: JSON.stringify([{ name: ENDPOINT, url: endpoint.url, secrets: [endpoint.secret] }]),
    // The endpoint is on loopback.
    PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS: 'true',
    PARTNER_EVENT_RETRY_SECONDS: String(RETRY_SECONDS),
    PARTNER_EVENT_TIMEOUT_SECONDS: '2',
  };
  return {
    endpoint,
    streams,
    worker: () => worker!,
    async startWorker() {
      worker = startWorkerProcess({
        temporalAddress: stack.temporal.address,
        taskQueue: stack.taskQueue,
        rampBaseUrl: stack.service.sandbox.url,
        env,
      });
      await worker.started;
    },
    async startDeliveries() {
      for (const [externalId, events] of streams) {
        const stream = streamOf(externalId);
        const progress = { [ENDPOINT]: 0 };
        await stack.client.workflow.signalWithStart<typeof partnerEventDelivery, [MorePartnerEvents]>(
          'partnerEventDelivery',
          {
            workflowId: partnerEventDeliveryWorkflowId(stream),
            taskQueue: stack.taskQueue,
            args: [{ stream, throughSequence: events.length, endpoints: progress, retrySeconds: RETRY_SECONDS }],
            signal: morePartnerEventsSignal,
            signalArgs: [{ throughSequence: events.length, endpoints: progress }],
          },
        );
      }
    },
  };
}

const total = (c: Case) => [...c.streams.values()].reduce((sum, events) => sum + events.length, 0);
const distinctAccepted = (c: Case) => new Set(c.endpoint.accepted.map((delivery) => delivery.webhookId)).size;

/** Every event of every stream delivered, and the stream's delivery workflow ended (not parked). */
async function waitDelivered(c: Case, timeoutMs: number): Promise<void> {
  await until('every event to be delivered', async () => (distinctAccepted(c) === total(c) ? true : undefined), {
    timeoutMs,
    describe: () =>
      `${distinctAccepted(c)}/${total(c)} delivered, ${c.endpoint.attempts.length} attempts; worker ${c.worker().exited() ? 'exited' : 'running'}`,
  });
  for (const externalId of c.streams.keys()) {
    const handle = stack.client.workflow.getHandle(partnerEventDeliveryWorkflowId(streamOf(externalId)));
    await until(
      `${externalId}'s delivery workflow to end`,
      async () => ((await handle.describe()).status.name === 'COMPLETED' ? true : undefined),
      { timeoutMs: 30_000 },
    );
  }
}

/**
 * Nothing lost and order kept: deduplicated by webhook-id, each customer's deliveries are exactly its
 * recorded events in sequence order; the endpoint never accepted an event before every earlier one of
 * its stream; every delivery's webhook-id is its event's id; every signature verified.
 */
function expectDeliveredInOrder(c: Case): void {
  expect(c.endpoint.rejected).toBe(0);
  for (const delivery of c.endpoint.accepted) expect(delivery.webhookId).toBe(delivery.event.id);
  for (const [externalId, events] of c.streams) {
    expect(c.endpoint.eventsOf(externalId).map((event) => event.id)).toEqual(events.map((event) => event.id));
    let highest = 0;
    for (const { event } of c.endpoint.accepted.filter((delivery) => delivery.event.externalId === externalId)) {
      expect(
        event.sequence,
        `${externalId}: #${event.sequence} arrived with only #${highest} before it`,
      ).toBeLessThanOrEqual(highest + 1);
      highest = Math.max(highest, event.sequence);
    }
  }
}

/** The attempts of the delivery activities of the streams' workflows, from their histories. */
async function deliveryAttempts(client: Client, c: Case): Promise<number> {
  let attempts = 0;
  for (const externalId of c.streams.keys()) {
    const history = await client.workflow
      .getHandle(partnerEventDeliveryWorkflowId(streamOf(externalId)))
      .fetchHistory();
    for (const event of history.events ?? []) attempts += event.activityTaskStartedEventAttributes?.attempt ?? 0;
  }
  return attempts;
}

describe('partner event delivery under faults', () => {
  it("loses nothing and keeps each customer's order when the worker is killed mid-delivery; the retried deliveries carry the same webhook-id", async () => {
    const c = await setUp('killed', 3, 60);
    // Slow answers: at any moment a delivery is in flight, and the kill catches it.
    c.endpoint.answer({ status: 204, delayMs: 100 });
    await c.startWorker();
    await c.startDeliveries();
    await until('some events to be delivered', async () => (distinctAccepted(c) >= 30 ? true : undefined), {
      timeoutMs: 60_000,
    });
    await c.worker().kill();
    const atKill = distinctAccepted(c);
    expect(atKill).toBeLessThan(total(c));

    // The same store folder: the restarted worker finds every event recorded. The killed attempts
    // are retried once their heartbeat timeout (2 minutes) passes, each resuming after its last heartbeat.
    c.endpoint.answer({ status: 204 });
    await c.startWorker();
    await waitDelivered(c, 240_000);
    expectDeliveredInOrder(c);
    // Something was delivered twice (the answer the kill cut off, and what came after the last heartbeat), under the same id.
    expect(c.endpoint.accepted.length).toBeGreaterThan(total(c));
  });

  it('loses nothing and keeps order when the endpoint refuses connections for an hour (scaled) and comes back', async () => {
    const c = await setUp('down', 3, 40);
    c.endpoint.answer({ status: 204, delayMs: 20 });
    await c.startWorker();
    await c.startDeliveries();
    await until('some events to be delivered', async () => (distinctAccepted(c) >= 15 ? true : undefined), {
      timeoutMs: 60_000,
    });
    await c.endpoint.down();
    // Requests it had already read finish (their answers are lost: those are delivered again, same id); then nothing gets in.
    await pause(200);
    const atDown = distinctAccepted(c);
    await pause(SCALED_HOUR_MS - 200);
    expect(distinctAccepted(c)).toBe(atDown);
    await c.endpoint.up();

    await waitDelivered(c, 120_000);
    expectDeliveredInOrder(c);
    expect(atDown).toBeLessThan(total(c));
    // The refused attempts were retried (with backoff), not parked.
    expect(await deliveryAttempts(stack.client, c)).toBeGreaterThan(c.streams.size);
  });

  it('does not follow a redirect (302 or 307): the delivery is retried under the same id and made once the endpoint answers 2xx', async () => {
    let followed = 0;
    const elsewhere = createServer((request, response) => {
      followed += 1;
      response.writeHead(204).end();
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', () => resolve()));
    cleanups.push(() => new Promise<void>((resolve) => elsewhere.close(() => resolve())));
    const location = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/elsewhere`;

    const c = await setUp('redirected', 2, 5);
    c.endpoint.answer({ status: 302, location });
    await c.startWorker();
    await c.startDeliveries();
    const firstIds = [...c.streams.values()].map((events) => events[0]!.id);
    const triedTimes = (times: number) => async () =>
      firstIds.every((id) => c.endpoint.attempts.filter((attempt) => attempt === id).length >= times)
        ? true
        : undefined;
    await until('the first events to be tried three times', triedTimes(3), { timeoutMs: 60_000 });
    c.endpoint.answer({ status: 307, location });
    await until('the first events to be tried twice more', triedTimes(5), { timeoutMs: 60_000 });

    // Only each stream's first event was offered (the rest wait behind it), never elsewhere, and none accepted.
    expect(new Set(c.endpoint.attempts)).toEqual(new Set(firstIds));
    expect(c.endpoint.accepted).toEqual([]);
    expect(followed).toBe(0);

    c.endpoint.answer({ status: 204 });
    await waitDelivered(c, 60_000);
    expectDeliveredInOrder(c);
    expect(followed).toBe(0);
  });
});
