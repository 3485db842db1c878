/**
 * A replayed delivery never starts a second ramp-event run, however its first run ended: a leaked
 * webhook token replaying a delivery must not buy a workflow and its reads each time. An event the
 * service delivers before its own record shows it is waited for (targetWaitSeconds); one it never
 * confirms is dismissed, not parked, and reaches its target by the target's reads instead.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { startReceiver, type TestReceiver } from './support/receiver';

let h: JourneyHarness;
/** Every delivery goes through a ramp-event workflow, whose claims give up after two seconds. */
let receiver: TestReceiver;

beforeAll(async () => {
  h = await startJourneyHarness();
  receiver = await startReceiver({
    client: h.client,
    taskQueue: h.taskQueue,
    routing: 'workflow',
    eventTimings: { targetWaitSeconds: 2, firstRetrySeconds: 0.5, maxRetrySeconds: 1, notFoundGraceSeconds: 1 },
  });
});
afterAll(async () => {
  await receiver?.close();
  await h?.close();
});

describe('a replayed delivery', () => {
  it('starts no second run of an event whose claim the service never confirmed (dismissed, nothing parked)', async () => {
    // Only events move this journey.
    const journey = await h.startJourney({ timings: { pollIntervalSeconds: 3600, kycDeadlineSeconds: 86_400 } });
    const { customer } = await h.waitForJourney(journey, (s) => s.stage === 'AWAITING_KYC');
    const event = { event: 'CUSTOMER_APPROVED', payload: { id: customer.id, status: 'APPROVED' } };
    const workflowId = `event/CUSTOMER_APPROVED/${customer.id}`;

    expect(JSON.parse((await receiver.post(event)).body)).toEqual({ status: 'accepted' });
    expect(await h.client.workflow.getHandle(workflowId).result()).toMatchObject({
      outcome: 'DISMISSED',
      serviceStatus: customer.status,
    });
    const { typedSearchAttributes, runId } = await h.client.workflow.getHandle(workflowId).describe();
    expect(typedSearchAttributes.getAll()).toContainEqual(expect.objectContaining({ value: 'EVENT_DISMISSED' }));

    for (let replay = 0; replay < 3; replay++)
      expect(JSON.parse((await receiver.post(event)).body)).toEqual({ status: 'duplicate' });
    // describe answers the latest run: still the first.
    expect((await h.client.workflow.getHandle(workflowId).describe()).runId).toBe(runId);
    await journey.terminate('test over');
  });

  it('starts no second run of a made-up delivery once it was dismissed', async () => {
    const made = { event: 'DEPOSIT_APPROVED', payload: { id: randomUUID(), status: 'CONFIRMED' } };
    const workflowId = `event/DEPOSIT_APPROVED/${made.payload.id}`;
    expect(JSON.parse((await receiver.post(made)).body)).toEqual({ status: 'accepted' });
    const handle = h.client.workflow.getHandle(workflowId);
    expect(await handle.result()).toMatchObject({ outcome: 'DISMISSED' });
    const { runId } = await handle.describe();
    for (let replay = 0; replay < 3; replay++)
      expect(JSON.parse((await receiver.post(made)).body)).toEqual({ status: 'duplicate' });
    expect((await handle.describe()).runId).toBe(runId);
  });
});
