/**
 * A parked journey under a storm of deliveries ("Nothing wedges"), on the real dev server against the
 * sandbox: every hint delivered to a journey parked at its KYC deadline is a look at the service and
 * a few events in its history, so it continues as new still parked, with the same attention, and
 * tells the partner it needs attention once; an operator's retry works on the run the storm left.
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerEventSignal, retryUpdate } from '../../workflows/common/messages';
import type { CustomerRecord, RampEvent } from '../../workflows/common/records';
import { RampStage, RampStageSince } from '../../observability/search-attributes';
import { startJourneyHarness, TEST_OFFRAMP, TEST_ONRAMP, type JourneyHarness } from '../support/journey-harness';
import { startPartnerEvents, type PartnerEventsUnderTest } from '../support/partner-event-wiring';
import { until } from '../support/until';

let h: JourneyHarness;
let events: PartnerEventsUnderTest;

/** Parks a second after it starts waiting for KYC; its own looks are an hour apart. */
const PARKS_AT_KYC = { kycDeadlineSeconds: 1, pollIntervalSeconds: 3600, maxHistoryEvents: 1_000 };
/** A run's limit, and what can come in from the first workflow task past it to the run's close. */
const HISTORY_BOUND = PARKS_AT_KYC.maxHistoryEvents + 250;

beforeAll(async () => {
  events = await startPartnerEvents();
  h = await startJourneyHarness({}, { partnerEvents: events.wiring });
});
afterAll(async () => {
  await h?.close();
  await events?.close();
});

/** A CUSTOMER_APPROVED delivery as the receiver routes it: the payload's record, a hint (each a look while the journey waits for KYC). */
function approvalHint(customerId: string): RampEvent<CustomerRecord> {
  return {
    key: `CUSTOMER_APPROVED/${customerId}/${randomUUID()}`,
    event: 'CUSTOMER_APPROVED',
    record: { id: customerId, status: 'APPROVED' },
    fromPayload: true,
  };
}

/** 2,000 deliveries, 25 at a time, each batch as soon as the journey has taken the last one. */
async function stormOfDeliveries(handle: WorkflowHandle, customerId: string): Promise<void> {
  const STORM = 2_000;
  const AT_ONCE = 25;
  for (let sent = 0; sent < STORM; sent += AT_ONCE) {
    await Promise.all(
      Array.from({ length: AT_ONCE }, () => handle.signal(customerEventSignal, approvalHint(customerId))),
    );
    await until(
      'the journey to take the deliveries',
      async () => ((await handle.describe()).raw.pendingWorkflowTask ? undefined : true),
      60_000,
      20,
    );
  }
}

/** Every run of the journey, newest first, by the run each continued: the length of its history. */
async function runHistoryLengths(workflowId: string): Promise<number[]> {
  const lengths: number[] = [];
  for (let runId: string | undefined = (await h.client.workflow.getHandle(workflowId).describe()).runId; runId;) {
    const { events: history } = await h.client.workflow.getHandle(workflowId, runId).fetchHistory();
    lengths.push(history!.length);
    runId = history![0]!.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return lengths;
}

async function indexed(handle: WorkflowHandle) {
  const { typedSearchAttributes } = await handle.describe();
  return {
    stage: typedSearchAttributes.get(RampStage),
    since: typedSearchAttributes.get(RampStageSince)?.toISOString(),
  };
}

describe('a parked journey under a storm of deliveries', () => {
  it('parked at its KYC deadline, continues as new still parked with the same attention, tells the partner once, and takes a retry on the run the storm left', async () => {
    const handle = await h.startJourney({ onramp: TEST_ONRAMP, offramp: TEST_OFFRAMP, timings: PARKS_AT_KYC });
    const parked = await h.waitForJourney(handle, (s) => s.stage === 'NEEDS_ATTENTION');
    expect(parked.attention).toMatchObject({ stage: 'AWAITING_KYC', errorType: 'Deadline' });
    const indexedWhenParked = await indexed(handle);
    expect(indexedWhenParked.stage).toBe('NEEDS_ATTENTION');

    await stormOfDeliveries(handle, parked.customer.id!);
    // Before the fix a parked journey never continued as new: the whole storm landed in one run.
    const lengths = await runHistoryLengths(handle.workflowId);
    expect(lengths.length, 'runs').toBeGreaterThan(1);
    for (const length of lengths) expect(length).toBeLessThanOrEqual(HISTORY_BOUND);
    const after = await h.waitForJourney(handle, () => true);
    expect(after).toMatchObject({ stage: 'NEEDS_ATTENTION', attention: parked.attention });
    expect(await indexed(handle), 'what the stage-age scan and lists read').toEqual(indexedWhenParked);

    await h.control.approveCustomer(parked.customer.id!);
    expect(await handle.executeUpdate(retryUpdate, { args: [{}] })).toEqual({ resumed: 'AWAITING_KYC' });
    // Resumed: the retry's look read the approval, and the journey went on to set up its ramps.
    await h.waitForJourney(handle, (s) => s.stage === 'SETTING_UP_RAMPS' && s.attention === undefined);
    const told = (await events.store.stream(`customer/${parked.externalId}`, 0, 100)).map(({ type }) => type);
    expect(told.filter((type) => type === 'journey.needs_attention' || type === 'journey.resumed')).toEqual([
      'journey.needs_attention',
      'journey.resumed',
    ]);
    await handle.terminate('test over');
  });
});
