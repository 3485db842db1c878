/**
 * A sequence conflict that numbering on cannot heal (here a store that refuses every append of the
 * stream as held, as a second writer of the stream would keep doing) does not wedge the workflow: it
 * numbers on a few times, then parks the stream's publishing with the reason
 * PartnerEventSequenceConflict, and the workflow ends. Before, the publish retried for ever and the
 * workflow could never end.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { bundleWorkflowCode } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PartnerEventStore } from '../../partner-events/store';
import { PartnerEventConflictError } from '../../partner-events/store-errors';
import { WORKFLOW_BUNDLE_PATHS } from '../../workers/worker';
import { QUIET_BUNDLER } from '../support/builds';
import { startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { startPartnerEvents, type PartnerEventsUnderTest } from '../support/partner-event-wiring';
import { publishingIn } from '../support/partner-events';
import { finishSignal, type partnerEventBurst } from '../support/workflows/partner-event-burst';

let h: JourneyHarness;
let events: PartnerEventsUnderTest;
const CONTESTED = 'contested-';

beforeAll(async () => {
  const { code } = await bundleWorkflowCode({
    ...WORKFLOW_BUNDLE_PATHS,
    workflowsPath: join(__dirname, '..', 'support', 'workflows', 'partner-event-burst.ts'),
    logger: QUIET_BUNDLER,
  });
  const workflowBundlePath = join(mkdtempSync(join(tmpdir(), 'rampflow-conflict-')), 'workflow-bundle.js');
  writeFileSync(workflowBundlePath, code);
  events = await startPartnerEvents();
  // The real store, except that a contested stream's numbers are always already held.
  const real = events.store;
  const contested: PartnerEventStore = Object.assign(Object.create(real) as PartnerEventStore, {
    append: async (
      stream: Parameters<PartnerEventStore['append']>[0],
      batch: Parameters<PartnerEventStore['append']>[1],
    ) => {
      if (stream.startsWith(`customer/${CONTESTED}`))
        throw new PartnerEventConflictError(stream, batch[0]!.sequence, batch[0]!.id);
      return real.append(stream, batch);
    },
  });
  h = await startJourneyHarness({}, { partnerEvents: { ...events.wiring, store: contested }, workflowBundlePath });
});
afterAll(async () => {
  await h?.close();
  await events?.close();
});

describe('a sequence conflict that numbering on cannot heal', () => {
  it("parks the stream's publishing after a few tries, and the workflow ends", async () => {
    const externalId = `${CONTESTED}${randomUUID()}`;
    const handle = await h.client.workflow.start<typeof partnerEventBurst>('partnerEventBurst', {
      taskQueue: h.taskQueue,
      workflowId: `burst/${externalId}`,
      args: [{ externalId, count: 3 }],
    });
    await handle.signal(finishSignal);
    expect(await handle.result()).toBe(3);
    const { recordings } = publishingIn((await handle.fetchHistory()).events ?? []);
    // The first batch, numbered on three times, then parked: nothing more was tried, nothing pushed.
    expect(recordings).toBeGreaterThanOrEqual(4);
    expect(recordings).toBeLessThanOrEqual(8);
    expect(events.endpoint.attempts).toEqual([]);
  }, 120_000);
});
