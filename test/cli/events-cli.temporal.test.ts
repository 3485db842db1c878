/**
 * `rampflow events list|replay` as an operator runs them (child processes), against a real worker:
 * an event that came before its journey parks, is listed with its reason, and once the journey runs a
 * replay routes it there.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handOff, parseDelivery } from '../../webhooks';
import type { EventReport } from '../../client';
import { startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { runRampflow, type RunResult } from '../support/run';
import { temporalAddress } from '../support/temporal';

let h: JourneyHarness;
beforeAll(async () => {
  h = await startJourneyHarness();
});
afterAll(async () => {
  await h.close();
});

function rampflow(...args: string[]): Promise<RunResult> {
  return runRampflow(args, {
    env: { ...process.env, TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_TASK_QUEUE: h.taskQueue },
  });
}

async function listedEvents(...flags: string[]): Promise<EventReport[]> {
  const result = await rampflow('events', 'list', '--json', ...flags);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as EventReport[];
}

describe('rampflow events', () => {
  it('lists an event parked because its journey was not running, and replays it into the journey once it runs', async () => {
    // The service has an approved customer whose journey has not started (yet).
    const externalId = `user-${randomUUID()}`;
    const created = await h.ramp.customers.create({ externalId, realName: 'Ada Lovelace', email: 'ada@example.com' });
    const customerId = created.id!;
    await h.control.approveCustomer(customerId);

    // Its CUSTOMER_APPROVED finds no journey within the wait and parks.
    const delivery = parseDelivery(
      { event: 'CUSTOMER_APPROVED', payload: { id: customerId, externalId, status: 'APPROVED' } },
      { targetWaitSeconds: 1, firstRetrySeconds: 0.2, maxRetrySeconds: 0.5 },
    );
    if (!delivery.ok) throw new Error(delivery.reason);
    await handOff({ client: h.client, taskQueue: h.taskQueue, timeoutMs: 10_000 }, delivery.workflowId, delivery.input);
    await h.client.workflow.getHandle(delivery.workflowId).result();

    let parked: EventReport | undefined;
    for (let attempt = 0; attempt < 50 && !parked; attempt++) {
      parked = (await listedEvents()).find((event) => event.workflowId === delivery.workflowId);
      if (!parked) await new Promise((wake) => setTimeout(wake, 200));
    }
    expect(parked).toMatchObject({
      event: 'CUSTOMER_APPROVED',
      payloadId: customerId,
      stage: 'EVENT_UNROUTED',
      outcome: 'PARKED',
      parkCode: 'NO_TARGET',
    });
    const table = await rampflow('events', 'list');
    expect(table.stdout).toContain('NO_TARGET');

    // The journey starts (only events move it: its polls are an hour apart); the operator replays.
    const handle = await h.startJourney({ customer: { externalId }, timings: { pollIntervalSeconds: 3600 } });
    await h.waitForJourney(handle, (s) => s.customer.id === customerId);
    const replayed = await rampflow('events', 'replay', delivery.workflowId);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stdout).toContain(`${delivery.workflowId}: routing again from the start`);
    await h.waitForJourney(handle, (s) => s.stage === 'ACTIVE');
    expect(await h.client.workflow.getHandle(delivery.workflowId).result()).toMatchObject({ outcome: 'ROUTED' });
    await handle.terminate('test over');
  });

  it('refuses to replay what is not an event, or an event that does not exist, in one line', async () => {
    const notAnEvent = await rampflow('events', 'replay', 'customer/someone');
    expect(notAnEvent.code).toBe(1);
    expect(notAnEvent.stderr.trim()).toBe(
      "rampflow: workflowId: expected event/<EVENT>/<payload id>, got 'customer/someone'",
    );
    const missing = await rampflow('events', 'replay', 'event/CUSTOMER_APPROVED/no-such-id');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^rampflow: .*not found/);
  });
});
