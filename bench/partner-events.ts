/**
 * Partner event delivery throughput (issue 24): events a second delivered to one endpoint, against a
 * floor. The path measured is the delivery workflow's (workflows/partner-events/delivery.ts), the one
 * that carries volume: a stream catching up after its endpoint was down, or a burst of events. S
 * streams of K events each are appended to the embedded file store (partner-events/file-store.ts)
 * before the worker starts, then S delivery workflows are started at once by signal-with-start,
 * exactly as the publish activity's hand-off starts them, against a real worker (`rampflow worker`, a
 * child process, the endpoint configured by PARTNER_EVENT_ENDPOINTS). Time runs from the first start
 * to the last event the endpoint accepted.
 *
 * The floor is the same deliveries without Temporal: in this process, `deliverEvent`
 * (partner-events/deliver.ts, the worker's own signed POST) in S concurrent loops, each stream's
 * events one after another as the workflow sends them, through a pool with the worker's limit (4
 * connections to the origin). Both go to an endpoint on loopback that verifies each signature with the
 * `standardwebhooks` package (bench/support/partner-endpoint.ts), a fresh one each so ids do not
 * collide.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PartnerEvent, PartnerEventStream } from '../partner-events/catalogue';
import { createDeliveryAgent, deliverEvent } from '../partner-events/deliver';
import { openFilePartnerEventStore } from '../partner-events/file-store';
import {
  morePartnerEventsSignal,
  partnerEventDeliveryWorkflowId,
  type MorePartnerEvents,
} from '../workflows/partner-events/messages';
import type { partnerEventDelivery } from '../workflows/partner-events/delivery';
import type { BenchOptions } from './options';
import type { Figure } from './report';
import { actionsOfWorkflows, totalActions } from './support/billable-actions';
import { partnerEventEnvFor, startBenchPartnerEndpoint, type BenchPartnerEndpoint } from './support/partner-endpoint';
import { startRampflowStack } from './support/rampflow-stack';
import { BENCH_PAYLOAD_KEYS, startBenchTemporal } from './support/temporal';

const ENDPOINT = 'bench-partner';
/** The store's append per batch, as the outbox publishes (50 a batch). */
const APPEND_BATCH = 50;
const LIMIT_MS = 300_000;

function eventsOf(externalId: string, count: number): PartnerEvent[] {
  const at = new Date().toISOString();
  return Array.from({ length: count }, (_, index) => ({
    id: `evt_${randomBytes(16).toString('hex')}`,
    type: 'deposit.received',
    timestamp: at,
    sequence: index + 1,
    externalId,
    data: { depositId: `dep-${externalId}-${index + 1}`, kind: 'ONRAMP', amount: '100.00', currency: 'AUD' },
  }));
}

const streamOf = (externalId: string): PartnerEventStream => `customer/${externalId}`;

async function waitAccepted(endpoint: BenchPartnerEndpoint, count: number, assertAlive: () => void): Promise<boolean> {
  const deadline = Date.now() + LIMIT_MS;
  const done = endpoint.whenAccepted(count).then(() => true);
  for (;;) {
    if (await Promise.race([done, new Promise<false>((wake) => setTimeout(() => wake(false), 500))])) return true;
    assertAlive();
    if (Date.now() > deadline) return false;
  }
}

/** The floor: the same signed POSTs from this process, S loops at once, each stream in order. */
async function floor(streams: PartnerEvent[][]): Promise<{ ms: number; endpoint: BenchPartnerEndpoint }> {
  const endpoint = await startBenchPartnerEndpoint(ENDPOINT);
  const agent = createDeliveryAgent({ allowPrivateAddresses: true });
  try {
    const started = performance.now();
    await Promise.all(
      streams.map(async (events) => {
        for (const event of events) {
          const attempt = await deliverEvent(endpoint.configured, event, { timeoutMs: 15_000, dispatcher: agent });
          if (attempt.outcome !== 'delivered')
            throw new Error(`the floor's delivery failed: ${JSON.stringify(attempt)}`);
        }
      }),
    );
    return { ms: endpoint.lastAcceptedAt() - started, endpoint };
  } finally {
    await agent.close();
    await endpoint.close();
  }
}

export async function benchPartnerEvents(options: BenchOptions): Promise<Figure[]> {
  const [streamCount, perStream] = (process.env.BENCH_PARTNER_EVENTS ?? (options.quick ? '10x50' : '20x200'))
    .split('x')
    .map(Number) as [number, number];
  if (!(streamCount >= 1 && perStream >= 1))
    throw new Error('BENCH_PARTNER_EVENTS is SxK: S streams of K events each, e.g. 20x200');
  const total = streamCount * perStream;
  const externalIds = Array.from({ length: streamCount }, (_, index) => `bench-events-${index}`);

  options.progress(
    `partner events: floor, ${total} events (${streamCount} streams × ${perStream}) by deliverEvent from this process`,
  );
  const floorRun = await floor(externalIds.map((externalId) => eventsOf(externalId, perStream)));
  const floorRate = total / (floorRun.ms / 1000);

  const dir = mkdtempSync(join(tmpdir(), 'rampflow-bench-partner-events-'));
  const temporal = await startBenchTemporal();
  const endpoint = await startBenchPartnerEndpoint(ENDPOINT);
  try {
    // The store's one writer is the worker: append first, close, then start the worker on the same folder.
    const store = await openFilePartnerEventStore({ dir, payloadKeys: BENCH_PAYLOAD_KEYS, role: 'writer' });
    try {
      for (const externalId of externalIds) {
        const events = eventsOf(externalId, perStream);
        for (let from = 0; from < events.length; from += APPEND_BATCH)
          await store.append(streamOf(externalId), events.slice(from, from + APPEND_BATCH));
      }
    } finally {
      await store.close();
    }
    const stack = await startRampflowStack(temporal, {
      name: 'partner-events',
      deliveryTickSeconds: 1,
      partnerEventEnv: partnerEventEnvFor(endpoint, { PARTNER_EVENTS_DIR: dir }),
    });
    try {
      options.progress(
        `partner events: ${streamCount} delivery workflows, ${perStream} events each, through the worker`,
      );
      const started = performance.now();
      await Promise.all(
        externalIds.map((externalId) => {
          const stream = streamOf(externalId);
          const endpoints = { [ENDPOINT]: 0 };
          return temporal.client.workflow.signalWithStart<typeof partnerEventDelivery, [MorePartnerEvents]>(
            'partnerEventDelivery',
            {
              workflowId: partnerEventDeliveryWorkflowId(stream),
              taskQueue: stack.taskQueue,
              args: [{ stream, throughSequence: perStream, endpoints }],
              signal: morePartnerEventsSignal,
              signalArgs: [{ throughSequence: perStream, endpoints }],
            },
          );
        }),
      );
      const finished = await waitAccepted(endpoint, total, () => stack.worker!.assertAlive());
      const ms = endpoint.lastAcceptedAt() - started;
      const rate = endpoint.accepted() / (ms / 1000);
      const { counts, runs } = await actionsOfWorkflows(temporal.client, `WorkflowType = 'partnerEventDelivery'`);
      const { unverified, outOfOrder } = endpoint.problems();
      const checks = `${endpoint.accepted()}/${total} distinct events accepted${finished ? '' : ' (UNFINISHED within the limit)'}, ${endpoint.deliveries()} deliveries, ${unverified} unverified, ${outOfOrder} out of order`;
      const method = `${streamCount} streams × ${perStream} events appended to the file store, then ${streamCount} partnerEventDelivery workflows signal-with-started at once against a rampflow worker child (4 connections to the endpoint); first start to the last event accepted by a loopback endpoint verifying with standardwebhooks; ${checks}`;
      return [
        { name: 'partner events: delivered per second, delivery workflows', value: rate, unit: '/s', method },
        {
          name: 'partner events: floor, signed POSTs per second',
          value: floorRate,
          unit: '/s',
          method: `the same ${total} events by deliverEvent (partner-events/deliver.ts) from the benchmark's process, ${streamCount} loops at once, each stream in order, 4 connections; first to last accepted; ${floorRun.endpoint.accepted()} accepted`,
        },
        {
          name: 'partner events: floor / delivery workflows',
          value: floorRate / rate,
          unit: 'x',
          method:
            "events a second of the floor over the delivery workflows' (how many times slower the worker path is)",
        },
        {
          name: 'partner events: Temporal actions per event, delivery workflows',
          value: totalActions(counts) / total,
          unit: 'actions',
          method: `every history of the ${runs} delivery workflow runs (starts, activity attempts, the stage's upserts), over the events they delivered`,
        },
      ];
    } finally {
      await stack.stop();
    }
  } finally {
    await endpoint.close();
    await temporal.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
