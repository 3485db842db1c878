/**
 * The receiver's budget (webhooks/receiver-budget.ts) against the real dev server: what a holder of a
 * leaked token can make one receiver do is bounded per source address, per target workflow and in
 * workflow starts (429 with Retry-After beyond each), a forged copy of a claim sent first does not use up
 * the genuine one, and the
 * ramp-event workflows it starts read the service on the service queue at the lowest priority.
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRIORITY, serviceTaskQueueOf } from '../../workflows/common/calls';
import { deposit } from '../ramp/support/records';
import { startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { eventually, signalsReceived, startReceiver, workflowExists, type TestReceiver } from './support/receiver';

let h: JourneyHarness;
const receivers: TestReceiver[] = [];

beforeAll(async () => {
  h = await startJourneyHarness();
});
afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
  await h?.close();
});

/** A receiver with the given budget (production defaults for the rest); nothing refills within a test. */
async function receiverWith(options: Partial<Parameters<typeof startReceiver>[0]>): Promise<TestReceiver> {
  const receiver = await startReceiver({ client: h.client, taskQueue: h.taskQueue, ...options });
  receivers.push(receiver);
  return receiver;
}

/** Posts and keeps the Retry-After header, which TestReceiver.post drops. */
async function post(
  receiver: TestReceiver,
  body: unknown,
): Promise<{ status: number; retryAfter: string | undefined }> {
  const response = await request(receiver.webhookUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await response.body.text();
  const retryAfter = response.headers['retry-after'];
  return { status: response.statusCode, retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined };
}

/** Posts with extra headers (a proxy's X-Forwarded-For); the status only. */
async function postFrom(receiver: TestReceiver, body: unknown, headers: Record<string, string>): Promise<number> {
  const response = await request(receiver.webhookUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  await response.body.text();
  return response.statusCode;
}

const madeUpDeposit = () => {
  const id = randomUUID();
  return {
    workflowId: `event/DEPOSIT_RECEIVED/${id}`,
    body: { event: 'DEPOSIT_RECEIVED', payload: { ...deposit, id } },
  };
};

/** A journey waiting for KYC whose customer the service has approved, and that customer's record. */
async function approvedCustomer(): Promise<{
  journey: WorkflowHandle;
  externalId: string;
  payload: Record<string, unknown>;
}> {
  const journey = await h.startJourney({ timings: { pollIntervalSeconds: 3600, kycDeadlineSeconds: 86_400 } });
  const state = await h.waitForJourney(journey, (s) => s.stage === 'AWAITING_KYC');
  await h.control.approveCustomer(state.customer.id!);
  const payload = (await h.ramp.customers.detail({ id: state.customer.id! })) as Record<string, unknown>;
  return { journey, externalId: state.externalId, payload };
}

/**
 * The customerEvent signals in the journey's history, once at least `least` are there: a signal that
 * arrives during a workflow task is written to the history when that task completes.
 */
const customerEvents = async (journey: WorkflowHandle, least: number) =>
  (
    await eventually(
      () => signalsReceived(journey),
      (signals) => signals.filter((signal) => signal.name === 'customerEvent').length >= least,
      `${least} customerEvent signals in the history`,
    )
  ).filter((signal) => signal.name === 'customerEvent');

const overBudget = async (receiver: TestReceiver, budget: string) =>
  Number(
    new RegExp(`rampflow_webhook_over_budget_total\\{budget="${budget}"\\} (\\d+)`).exec(
      await receiver.metrics.registry.metrics(),
    )?.[1],
  );

describe('the receiver budget', () => {
  it("answers 429 with Retry-After past a source address's rate, before anything starts", async () => {
    const receiver = await receiverWith({ routing: 'workflow', budget: { source: { perSecond: 0.001, burst: 2 } } });
    const deliveries = [madeUpDeposit(), madeUpDeposit(), madeUpDeposit()];
    const answers = [];
    for (const { body } of deliveries) answers.push(await post(receiver, body));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 429]);
    expect(Number(answers[2]!.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(await workflowExists(h.client, deliveries[2]!.workflowId)).toBe(false);
    expect(await overBudget(receiver, 'source')).toBe(1);
  });

  it('behind a trusted proxy, spends the budget of the address the proxy saw: a forger past its rate leaves the service its own', async () => {
    // Loopback is the proxy here; the service and the forger are the addresses it forwards for.
    const receiver = await receiverWith({
      routing: 'workflow',
      trustedProxies: ['127.0.0.1'],
      budget: { source: { perSecond: 0.001, burst: 2 } },
    });
    const from = (address: string) => postFrom(receiver, madeUpDeposit().body, { 'x-forwarded-for': address });
    const forger = [await from('203.0.113.7'), await from('203.0.113.7'), await from('203.0.113.7')];
    expect(forger).toEqual([200, 200, 429]);
    // The forger's address named itself last in the header, as a client behind the proxy can: the proxy's own entry (the rightmost) is what counts.
    expect(await from('198.51.100.9')).toBe(200);
    expect(await postFrom(receiver, madeUpDeposit().body, { 'x-forwarded-for': '198.51.100.9, 203.0.113.7' })).toBe(
      429,
    );
  });

  it("without a trusted proxy, ignores X-Forwarded-For: a peer cannot name its own source to spend another's budget or escape its own", async () => {
    const receiver = await receiverWith({ routing: 'workflow', budget: { source: { perSecond: 0.001, burst: 2 } } });
    const answers = [];
    for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3'])
      answers.push(await postFrom(receiver, madeUpDeposit().body, { 'x-forwarded-for': address }));
    expect(answers).toEqual([200, 200, 429]);
  });

  it('refuses to start with a trusted proxy that is not an address, naming the variable and the entry', async () => {
    await expect(receiverWith({ trustedProxies: ['10.0.0.0/33'] })).rejects.toThrow(
      /WEBHOOK_TRUSTED_PROXIES: "10.0.0.0\/33"/,
    );
  });

  it('answers 429 past the workflow-start rate: the deliveries over it start nothing', async () => {
    const receiver = await receiverWith({ routing: 'workflow', budget: { starts: { perSecond: 0.001, burst: 3 } } });
    const deliveries = Array.from({ length: 5 }, madeUpDeposit);
    const statuses = [];
    for (const { body } of deliveries) statuses.push((await post(receiver, body)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    for (const { workflowId } of deliveries.slice(3)) expect(await workflowExists(h.client, workflowId)).toBe(false);
    expect(await overBudget(receiver, 'starts')).toBe(2);
  });

  it("answers 429 past a target's rate: a journey gets no more hints than its burst", async () => {
    const receiver = await receiverWith({ budget: { target: { perSecond: 0.001, burst: 3 } } });
    const { journey, externalId, payload } = await approvedCustomer();
    // Made-up customers named as this journey's: each a new claim, all to the same target.
    const statuses = [];
    for (let copy = 0; copy < 6; copy++)
      statuses.push(
        (await post(receiver, { event: 'CUSTOMER_APPROVED', payload: { ...payload, id: randomUUID(), externalId } }))
          .status,
      );
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
    expect(await customerEvents(journey, 3)).toHaveLength(3);
    await journey.terminate('test over');
  });

  it('signals a copy of a claim that comes after the first was held: a forged claim sent first does not use up the genuine one', async () => {
    const receiver = await receiverWith({});
    const { journey, payload } = await approvedCustomer();
    // The forger's copy of the claim (one field changed) first; the journey reads the customer on it.
    expect(
      (await receiver.post({ event: 'CUSTOMER_APPROVED', payload: { ...payload, email: 'forged@example.com' } }))
        .status,
    ).toBe(200);
    await customerEvents(journey, 1);
    // The genuine delivery of the same claim may come after that read: it is signalled, not dropped.
    const genuine = await receiver.post({ event: 'CUSTOMER_APPROVED', payload });
    expect(genuine.status).toBe(200);
    expect(genuine.body).not.toContain('duplicate');
    expect(await customerEvents(journey, 2)).toHaveLength(2);
    await journey.terminate('test over');
  });

  it('starts the ramp-event workflow at the lowest priority, and has it read the service on the service queue at that priority, not as a local activity', async () => {
    const receiver = await receiverWith({ routing: 'workflow' });
    const { body, workflowId } = madeUpDeposit();
    expect((await post(receiver, body)).status).toBe(200);
    const handle = h.client.workflow.getHandle(workflowId);
    expect(await handle.result()).toMatchObject({ outcome: 'DISMISSED' });
    const events = (await handle.fetchHistory()).events ?? [];
    // Its workflow tasks wait behind journeys', deposits' and payouts' when the queue is behind (a forger's flood).
    expect(events[0]?.workflowExecutionStartedEventAttributes?.priority?.priorityKey).toBe(PRIORITY.LOW);
    expect(events.filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toEqual(
      [],
    );
    const reads = events
      .map((event) => event.activityTaskScheduledEventAttributes)
      .filter((scheduled) => scheduled?.activityType?.name === 'resolveRampEvent');
    expect(reads.length).toBe(2); // the read, and one more look after the grace period
    for (const read of reads) {
      expect(read!.taskQueue?.name).toBe(serviceTaskQueueOf(h.taskQueue));
      expect(read!.priority?.priorityKey).toBe(PRIORITY.LOW);
    }
  });

  it('dismisses an event whose read could not be made within its wait: nothing waits without bound at the lowest priority', async () => {
    const receiver = await receiverWith({
      routing: 'workflow',
      eventTimings: { targetWaitSeconds: 2, firstRetrySeconds: 0.5, maxRetrySeconds: 1 },
    });
    const { journey, payload } = await approvedCustomer();
    // The service queue dispatches nothing (as under a backlog of higher priorities that never clears).
    const holdServiceQueue = (requestsPerSecond: number | undefined) =>
      h.client.workflowService.updateTaskQueueConfig({
        namespace: 'default',
        identity: 'receiver-budget-test',
        taskQueue: serviceTaskQueueOf(h.taskQueue),
        taskQueueType: proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
        updateQueueRateLimit: {
          reason: 'receiver-budget test',
          ...(requestsPerSecond === undefined ? {} : { rateLimit: { requestsPerSecond } }),
        },
      });
    await holdServiceQueue(0);
    try {
      expect((await post(receiver, { event: 'CUSTOMER_APPROVED', payload })).status).toBe(200);
      const result = await h.client.workflow.getHandle(`event/CUSTOMER_APPROVED/${String(payload.id)}`).result();
      expect(result).toMatchObject({
        outcome: 'DISMISSED',
        reason: expect.stringContaining('could not be read') as unknown,
      });
    } finally {
      await holdServiceQueue(undefined);
    }
    await journey.terminate('test over');
  });
});
