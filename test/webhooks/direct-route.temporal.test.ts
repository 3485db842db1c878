/**
 * Direct routing (webhooks/direct-route.ts) against the real dev server: a delivery the receiver can
 * place from its payload becomes one signal to its target (a deposit's: one signal-with-start) and no
 * ramp-event workflow; what it cannot place yet goes to the ramp-event workflow, counted by reason;
 * `routing: 'workflow'` sends everything there.
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EncryptionCodec, payloadKeysFromEnv } from '../../codec';
import { depositWorkflowId, eventWorkflowId } from '../../workflows/common/messages';
import type { DepositLifecycleInput } from '../../workflows/schemas';
import { deposit, payment, trade, virtualAccount } from '../ramp/support/records';
import { FAST_DEPOSIT_TIMINGS, startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { eventually, signalsReceived, startReceiver, workflowExists, type TestReceiver } from './support/receiver';

let h: JourneyHarness;
let receiver: TestReceiver;
/** Deposit workflows a case started, ended after it so they do not poll the sandbox for records it lacks. */
const startedDeposits: string[] = [];

beforeAll(async () => {
  h = await startJourneyHarness();
  receiver = await startReceiver({ client: h.client, taskQueue: h.taskQueue });
});
afterAll(async () => {
  for (const workflowId of startedDeposits)
    await h.client.workflow
      .getHandle(workflowId)
      .terminate('test over')
      .catch(() => undefined);
  await receiver?.close();
  await h?.close();
});

/** A journey waiting for KYC, and its customer approved at the service (so a CUSTOMER_APPROVED is true). */
async function approvedCustomer(): Promise<{
  journey: WorkflowHandle;
  customerId: string;
  payload: Record<string, unknown>;
}> {
  const journey = await h.startJourney({});
  const state = await h.waitForJourney(journey, (s) => s.customer.id !== undefined);
  const customerId = state.customer.id!;
  await h.control.approveCustomer(customerId);
  const payload = (await h.ramp.customers.detail({ id: customerId })) as Record<string, unknown>;
  return { journey, customerId, payload };
}

/** The receiver's count of deliveries it handed to a ramp-event workflow, for one reason. */
async function workflowRoutes(of: TestReceiver, reason: string): Promise<number> {
  const metric = await of.metrics.registry.getSingleMetric('rampflow_webhook_workflow_routes_total')!.get();
  return metric.values.find((value) => value.labels.reason === reason)?.value ?? 0;
}

const accepted = { status: 200, body: JSON.stringify({ status: 'accepted' }) };

/**
 * Waits for a signal to show in the workflow's history: one that arrives while a workflow task runs is
 * written there only when that task completes.
 */
async function expectSignal(handle: WorkflowHandle, signal: { name: string; key: string }): Promise<void> {
  await eventually(
    () => signalsReceived(handle),
    (signals) => signals.some((seen) => seen.name === signal.name && seen.key === signal.key),
    `${signal.name} ${signal.key} in ${handle.workflowId}'s history`,
  );
}

describe('direct routing', () => {
  it('wakes the journey of a customer event itself (no ramp-event workflow); the journey reads the approval from the service', async () => {
    const { journey, customerId, payload } = await approvedCustomer();
    expect(await receiver.post({ event: 'CUSTOMER_APPROVED', payload })).toEqual(accepted);

    await expectSignal(journey, { name: 'customerEvent', key: `CUSTOMER_APPROVED/${customerId}` });
    expect(await workflowExists(h.client, eventWorkflowId('CUSTOMER_APPROVED', customerId))).toBe(false);
    await h.waitForJourney(journey, (state) => state.stage !== 'AWAITING_KYC');
    const history = await journey.fetchHistory();
    expect(
      history.events!.some((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'getCustomer'),
    ).toBe(true);
  });

  it('routes an account event to the journey rampflow indexed with its customer id, with no customer event before it', async () => {
    const { journey, customerId } = await approvedCustomer();
    // The journey indexes its own customer id (RampCustomerId) from its create; wait until visibility has it.
    await h.listWorkflowIds(`RampCustomerId = '${customerId}'`);
    const fresh = await startReceiver({ client: h.client, taskQueue: h.taskQueue });
    try {
      const account = { ...virtualAccount, id: `va-${randomUUID()}`, customerId, status: 'VERIFIED' };
      expect(await fresh.post({ event: 'VIRTUAL_ACCOUNT_APPROVED', payload: account })).toEqual(accepted);
      expect(await workflowExists(h.client, eventWorkflowId('VIRTUAL_ACCOUNT_APPROVED', account.id))).toBe(false);
      await expectSignal(journey, { name: 'virtualAccountEvent', key: `VIRTUAL_ACCOUNT_APPROVED/${account.id}` });

      // A customer no running journey indexes: the ramp-event workflow re-reads and routes it.
      const stranger = { ...virtualAccount, id: `va-${randomUUID()}`, customerId: randomUUID(), status: 'VERIFIED' };
      expect(await fresh.post({ event: 'VIRTUAL_ACCOUNT_APPROVED', payload: stranger })).toEqual(accepted);
      expect(await workflowExists(h.client, eventWorkflowId('VIRTUAL_ACCOUNT_APPROVED', stranger.id))).toBe(true);
      expect(await workflowRoutes(fresh, 'unknown-customer')).toBe(1);
    } finally {
      await fresh.close();
    }
  });

  it("starts a deposit by signal-with-start with the receiver's timings and nothing of the payload in its input; its payment goes to the workflow", async () => {
    const depositId = randomUUID();
    const tradeId = `tr-${randomUUID()}`;
    const paymentId = `p-${randomUUID()}`;
    startedDeposits.push(depositWorkflowId(depositId));

    expect(
      await receiver.post({
        event: 'DEPOSIT_RECEIVED',
        payload: { ...deposit, id: depositId, customerId: randomUUID(), amount: '1000000.00' },
      }),
    ).toEqual(accepted);
    expect(
      await receiver.post({
        event: 'TRADE_CREATED',
        payload: { ...trade, id: tradeId, status: 'CREATED', deposit: { ...trade.deposit, id: depositId } },
      }),
    ).toEqual(accepted);
    // A payment names no deposit: which one it pays out takes the service's word.
    const paymentsBefore = await workflowRoutes(receiver, 'payment');
    expect(
      await receiver.post({ event: 'PAYMENT_SETTLED', payload: { ...payment, id: paymentId, reference: tradeId } }),
    ).toEqual(accepted);
    expect(await workflowExists(h.client, eventWorkflowId('PAYMENT_SETTLED', paymentId))).toBe(true);
    expect(await workflowRoutes(receiver, 'payment')).toBe(paymentsBefore + 1);

    const handle = h.client.workflow.getHandle(depositWorkflowId(depositId));
    expect(await startInputOf(handle)).toEqual({ depositId, timings: FAST_DEPOSIT_TIMINGS });
    expect((await handle.describe()).memo ?? {}).toEqual({});
    for (const [event, id] of [
      ['DEPOSIT_RECEIVED', depositId],
      ['TRADE_CREATED', tradeId],
    ] as const) {
      expect(await workflowExists(h.client, eventWorkflowId(event, id))).toBe(false);
    }
    // The service has no such deposit: its workflow read that, and ended DISMISSED with nothing reported.
    expect(await handle.result()).toMatchObject({ stage: 'DISMISSED' });
    expect((await signalsReceived(handle)).map((signal) => signal.name)).toEqual(['depositEvent', 'tradeEvent']);
  });

  it('takes nothing more into an ended deposit, but starts a dismissed one again', async () => {
    const customerId = randomUUID();
    // A deposit whose workflow has ended (here: terminated while it gives the service a minute to
    // show the record): a late event is answered 200 and starts nothing.
    const patient = await startReceiver({
      client: h.client,
      taskQueue: h.taskQueue,
      depositTimings: { ...FAST_DEPOSIT_TIMINGS, notFoundGraceSeconds: 60 },
    });
    try {
      const depositId = randomUUID();
      const handle = h.client.workflow.getHandle(depositWorkflowId(depositId));
      expect(
        await patient.post({ event: 'DEPOSIT_RECEIVED', payload: { ...deposit, id: depositId, customerId } }),
      ).toEqual(accepted);
      await handle.terminate('ended for the test');
      expect(
        await patient.post({
          event: 'DEPOSIT_APPROVED',
          payload: { ...deposit, id: depositId, customerId, status: 'CONFIRMED' },
        }),
      ).toEqual(accepted);
      expect((await handle.describe()).status.name).toBe('TERMINATED');
      expect(await workflowExists(h.client, eventWorkflowId('DEPOSIT_APPROVED', depositId))).toBe(false);
    } finally {
      await patient.close();
    }

    // A deposit dismissed because the service did not have it is started again by the next delivery.
    const ghostId = randomUUID();
    const ghost = h.client.workflow.getHandle(depositWorkflowId(ghostId));
    startedDeposits.push(depositWorkflowId(ghostId));
    expect(
      await receiver.post({ event: 'DEPOSIT_RECEIVED', payload: { ...deposit, id: ghostId, customerId } }),
    ).toEqual(accepted);
    expect(await ghost.result()).toMatchObject({ stage: 'DISMISSED' });
    const firstRun = (await ghost.describe()).runId;
    expect(
      await receiver.post({
        event: 'DEPOSIT_APPROVED',
        payload: { ...deposit, id: ghostId, customerId, status: 'CONFIRMED' },
      }),
    ).toEqual(accepted);
    expect((await h.client.workflow.getHandle(depositWorkflowId(ghostId)).describe()).runId).not.toBe(firstRun);
  });

  it('hands to the workflow what it cannot place: an unconfirmed status, a customer without a journey', async () => {
    const before = {
      unconfirmed: await workflowRoutes(receiver, 'unconfirmed'),
      noTarget: await workflowRoutes(receiver, 'no-target'),
    };

    // "Approved" with a status that says otherwise: the workflow re-reads the service's record.
    const disputed = { ...deposit, id: `d-${randomUUID()}`, status: 'RECEIVED' };
    expect(await receiver.post({ event: 'DEPOSIT_APPROVED', payload: disputed })).toEqual(accepted);
    expect(await workflowExists(h.client, eventWorkflowId('DEPOSIT_APPROVED', disputed.id))).toBe(true);
    expect(await workflowExists(h.client, depositWorkflowId(disputed.id))).toBe(false);

    const { payload } = await approvedCustomer();
    const orphan = { ...payload, id: `c-${randomUUID()}`, externalId: `nobody-${randomUUID()}` };
    expect(await receiver.post({ event: 'CUSTOMER_APPROVED', payload: orphan })).toEqual(accepted);
    expect(await workflowExists(h.client, eventWorkflowId('CUSTOMER_APPROVED', orphan.id))).toBe(true);

    expect(await workflowRoutes(receiver, 'unconfirmed')).toBe(before.unconfirmed + 1);
    expect(await workflowRoutes(receiver, 'no-target')).toBe(before.noTarget + 1);
  });

  it('hands to the workflow a payload that does not have its schema, even when it names a running journey', async () => {
    const before = await workflowRoutes(receiver, 'payload-mismatch');
    const { journey, customerId, payload } = await approvedCustomer();
    // Its envelope, status and externalId would route it; a mistyped field of the customer's schema must not.
    const mistyped = { ...payload, realName: 42 };
    expect(await receiver.post({ event: 'CUSTOMER_APPROVED', payload: mistyped })).toEqual(accepted);
    expect(await workflowExists(h.client, eventWorkflowId('CUSTOMER_APPROVED', customerId))).toBe(true);
    expect(await workflowRoutes(receiver, 'payload-mismatch')).toBe(before + 1);
    expect((await signalsReceived(journey)).some((seen) => seen.name === 'customerEvent')).toBe(false);
  });

  it('with routing "workflow", hands every delivery to a ramp-event workflow', async () => {
    const verified = await startReceiver({ client: h.client, taskQueue: h.taskQueue, routing: 'workflow' });
    try {
      const { journey, customerId, payload } = await approvedCustomer();
      expect(await verified.post({ event: 'CUSTOMER_APPROVED', payload })).toEqual(accepted);
      expect(await workflowExists(h.client, eventWorkflowId('CUSTOMER_APPROVED', customerId))).toBe(true);
      expect(await workflowRoutes(verified, 'configured')).toBe(1);
      // The workflow re-reads the record and signals the journey.
      await h.waitForJourney(
        journey,
        (state) => state.customer.status === 'APPROVED' || state.customer.status === 'CONFIRMED',
      );
    } finally {
      await verified.close();
    }
  });
});

/** The input a deposit's workflow was started with, from its first history event (opened with the run's payload key). */
async function startInputOf(handle: WorkflowHandle): Promise<DepositLifecycleInput | undefined> {
  const history = await handle.fetchHistory();
  const [sealed] = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
  if (!sealed) return undefined;
  const [opened] = await new EncryptionCodec(payloadKeysFromEnv()).decode([sealed]);
  return defaultPayloadConverter.fromPayload<DepositLifecycleInput>(opened!);
}
