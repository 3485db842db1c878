/**
 * A slow partner endpoint holds nothing up. Its answers take 2.4 s (Standard Webhooks allows 15): a
 * burst of events cannot all be pushed inside one attempt, so the push delivers what fits in its time
 * and hands the rest to the stream's delivery workflow; a workflow that ends waits only for its
 * events to be recorded, and the push under way is handed over. Either way the endpoint gets every
 * event once per webhook-id, in order, from one sender at a time: no attempt is still sending when
 * another starts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { bundleWorkflowCode } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partnerEventDeliveryWorkflowId } from '../../workflows/partner-events/messages';
import { WORKFLOW_BUNDLE_PATHS } from '../../workers/worker';
import { QUIET_BUNDLER } from '../support/builds';
import { startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { startPartnerEvents, type PartnerEventsUnderTest } from '../support/partner-event-wiring';
import { finishSignal, type partnerEventBurst } from '../support/workflows/partner-event-burst';

const ANSWER_MS = 2_400;

let h: JourneyHarness;
let events: PartnerEventsUnderTest;

beforeAll(async () => {
  const { code } = await bundleWorkflowCode({
    ...WORKFLOW_BUNDLE_PATHS,
    workflowsPath: join(__dirname, '..', 'support', 'workflows', 'partner-event-burst.ts'),
    logger: QUIET_BUNDLER,
  });
  const workflowBundlePath = join(mkdtempSync(join(tmpdir(), 'rampflow-burst-')), 'workflow-bundle.js');
  writeFileSync(workflowBundlePath, code);
  events = await startPartnerEvents({ timeoutMs: 15_000, retrySeconds: 3_600 });
  events.endpoint.answer({ status: 204, delayMs: ANSWER_MS });
  h = await startJourneyHarness({}, { partnerEvents: events.wiring, workflowBundlePath });
});
afterAll(async () => {
  await h?.close();
  await events?.close();
});

type Nothing = false | undefined | null;
async function until<T>(what: string, look: () => T | Nothing | Promise<T | Nothing>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const seen = await look();
    if (seen) return seen;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((wake) => setTimeout(wake, 200));
  }
}

function startBurst(count: number) {
  const externalId = `burst-${randomUUID()}`;
  const handle = h.client.workflow.start<typeof partnerEventBurst>('partnerEventBurst', {
    taskQueue: h.taskQueue,
    workflowId: `burst/${externalId}`,
    args: [{ externalId, count }],
  });
  return { externalId, handle };
}

/** Every event once per webhook-id, in sequence order, 1..count. */
async function expectDeliveredOnceInOrder(externalId: string, count: number): Promise<void> {
  const received = await until(
    'every event to reach the endpoint',
    () => {
      const seen = events.endpoint.eventsOf(externalId);
      return seen.length === count && seen;
    },
    count * ANSWER_MS * 3 + 60_000,
  );
  expect(received.map((event) => event.sequence)).toEqual(Array.from({ length: count }, (_, index) => index + 1));
  const mine = new Set(received.map((event) => event.id));
  const attempts = events.endpoint.attempts.filter((id) => mine.has(id));
  expect(attempts).toEqual(received.map((event) => event.id));
}

describe('a slow partner endpoint', () => {
  it('a burst larger than one push attempt can deliver: the rest goes to the delivery workflow, each event once and in order, one sender at a time, and the workflow goes on', async () => {
    const count = 60;
    const { externalId, handle: started } = startBurst(count);
    const handle = await started;
    // The push had to hand on: one attempt sends for a minute, 25 answers at this speed.
    await until(
      'the delivery workflow to take the stream over',
      () =>
        h.client.workflow
          .getHandle(partnerEventDeliveryWorkflowId(`customer/${externalId}`))
          .describe()
          .then(
            () => true,
            () => false,
          ),
      300_000,
    );
    await expectDeliveredOnceInOrder(externalId, count);
    expect(events.endpoint.mostAtOnce).toBe(1);
    await handle.signal(finishSignal);
    expect(await handle.result()).toBe(count);
  }, 600_000);

  it('a workflow that ends while its events are being pushed waits only for them to be recorded; the push is handed over, each event still once and in order', async () => {
    const count = 20;
    const { externalId, handle: started } = startBurst(count);
    const handle = await started;
    await until(
      'the events to be recorded',
      async () => (await events.store.stream(`customer/${externalId}`, 0, 100)).length === count,
      60_000,
    );
    await handle.signal(finishSignal);
    expect(await handle.result()).toBe(count);
    // It ended before the endpoint had them all: nothing waited on the partner.
    expect(events.endpoint.eventsOf(externalId).length).toBeLessThan(count);
    await expectDeliveredOnceInOrder(externalId, count);
    expect(events.endpoint.mostAtOnce).toBe(1);
  }, 300_000);
});
