/**
 * An event is never used up by a failed routing: when its workflow ended without reaching its target
 * (parked, EVENT_UNROUTED), the service's redelivery routes it again; an event that was routed stays a
 * duplicate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journeyStateQuery } from '../../workflows/messages';
import { startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { eventually, startReceiver, type TestReceiver } from './support/receiver';

let h: JourneyHarness;
/** Its events give up on an unconfirmed claim after two seconds. */
let receiver: TestReceiver;

beforeAll(async () => {
  h = await startJourneyHarness();
  receiver = await startReceiver({ client: h.client, taskQueue: h.taskQueue, eventTimings: { targetWaitSeconds: 2, firstRetrySeconds: 0.5, maxRetrySeconds: 1 } });
});
afterAll(async () => {
  await receiver?.close();
  await h?.close();
});

describe('a redelivered event', () => {
  it('is routed again when its first delivery could not be, and stays a duplicate once routed', async () => {
    // Only events move this journey.
    const journey = await h.startJourney({ timings: { pollIntervalSeconds: 3600, kycDeadlineSeconds: 86_400 } });
    const { customer } = await h.waitForJourney(journey, (s) => s.stage === 'AWAITING_KYC');
    const event = { event: 'CUSTOMER_APPROVED', payload: { id: customer.id, status: 'APPROVED' } };
    const workflowId = `event/CUSTOMER_APPROVED/${customer.id}`;
    const runs = async () => {
      let count = 0;
      for await (const _run of h.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) count += 1;
      return count;
    };

    // The service has not approved the customer yet (its webhook came early, or its read lags): the
    // event cannot be confirmed within its wait and parks.
    expect(JSON.parse((await receiver.post(event)).body)).toEqual({ status: 'accepted' });
    expect(await h.client.workflow.getHandle(workflowId).result()).toMatchObject({ outcome: 'PARKED', parkCode: 'DISPUTED' });

    // The service's next attempt, once its record shows the approval, routes it.
    await h.control.approveCustomer(customer.id!);
    expect(JSON.parse((await receiver.post(event)).body)).toEqual({ status: 'accepted' });
    await eventually(() => journey.query(journeyStateQuery), (s) => s.stage !== 'AWAITING_KYC', 'the journey past KYC');
    expect(await h.client.workflow.getHandle(workflowId).result()).toMatchObject({ outcome: 'ROUTED' });

    // Routed: every later delivery is a duplicate and starts nothing.
    expect(JSON.parse((await receiver.post(event)).body)).toEqual({ status: 'duplicate' });
    expect(await eventually(runs, (count) => count === 2, 'two runs of the event listed')).toBe(2);
    await journey.terminate('test over');
  });
});
