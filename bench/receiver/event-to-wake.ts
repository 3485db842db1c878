/**
 * Event-to-wake latency: from the moment a webhook is sent to the receiver until the journey it
 * concerns has applied it (the workflow task after the `customerEvent` signal completed, read from
 * the journey's history; the server and this process share the machine's clock).
 *
 * M journeys wait in AWAITING_KYC (autopilot off, so only this driver moves the service). For each,
 * the driver approves the customer in the sandbox, then delivers CUSTOMER_APPROVED itself, paced at
 * a steady rate; the receiver starts the ramp-event workflow, which re-reads the customer and
 * signals the journey.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { request } from 'undici';
import { z } from 'zod';
import type { RampflowClient } from '../../client';
import { jsonBody } from '../../ramp';
import { journeyWorkflowId } from '../../workflows/common/messages';
import { forEachLimited, sleep } from '../support/concurrency';
import type { RampflowStack } from '../support/rampflow-stack';
import { countWorkflows } from '../support/temporal';

const { EventType } = temporal.api.enums.v1;

const eventTimeMs = (event: temporal.api.history.v1.IHistoryEvent): number =>
  Number(event.eventTime?.seconds ?? 0) * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6);

/** When the journey finished applying the first customerEvent signal: the workflow task after it, completed. */
async function wokeAt(client: Client, externalId: string): Promise<number | undefined> {
  const history = await client.workflow.getHandle(journeyWorkflowId(externalId)).fetchHistory();
  const events = history.events ?? [];
  const signalled = events.findIndex(
    (event) =>
      event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED &&
      event.workflowExecutionSignaledEventAttributes?.signalName === 'customerEvent',
  );
  if (signalled === -1) return undefined;
  const applied = events
    .slice(signalled)
    .find((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
  return applied ? eventTimeMs(applied) : undefined;
}

export async function measureEventToWake(
  stack: RampflowStack,
  rampflow: RampflowClient,
  count: number,
  perSecond: number,
): Promise<number[]> {
  const prefix = `wake-${Date.now().toString(36)}-`;
  const externalIds = Array.from({ length: count }, (_, i) => `${prefix}${i}`);
  // Only events move these journeys: their polls are an hour apart.
  const timings = { pollIntervalSeconds: 3600 };
  await forEachLimited(externalIds, 16, async (externalId) => {
    await rampflow.startJourney({
      customer: { externalId, realName: 'Ada Lovelace', email: 'ada@example.com' },
      offramp: { currency: 'USDT', network: 'ETH', bankAccount: { accountNo: '987654321' } },
      timings,
    });
  });
  const waitingQuery = `WorkflowType = 'customerJourney' AND RampStage = 'AWAITING_KYC' AND RampExternalId STARTS_WITH '${prefix}'`;
  for (
    let deadline = Date.now() + 60_000;
    (await countWorkflows(rampflow.temporal, waitingQuery)) < count;
    await sleep(250)
  ) {
    if (Date.now() > deadline)
      throw new Error(`the event-to-wake journeys did not all reach AWAITING_KYC within a minute`);
  }

  const sentAt = new Map<string, number>();
  for (const externalId of externalIds) {
    const paced = sleep(1000 / perSecond);
    const customer = await stack.ramp.customers.detail({ externalId });
    await stack.ramp.http.request(
      { method: 'POST', path: '/sandbox/customer/approve', body: jsonBody({ id: customer.id }) },
      z.unknown(),
    );
    const approved = await stack.ramp.customers.detail({ id: customer.id });
    sentAt.set(externalId, Date.now());
    const response = await request(stack.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ event: 'CUSTOMER_APPROVED', payload: approved }),
    });
    await response.body.dump();
    if (response.statusCode !== 200)
      throw new Error(`the receiver answered ${response.statusCode} to CUSTOMER_APPROVED`);
    await paced;
  }

  const movedQuery = `WorkflowType = 'customerJourney' AND RampStage != 'AWAITING_KYC' AND RampExternalId STARTS_WITH '${prefix}'`;
  for (
    let deadline = Date.now() + 30_000;
    (await countWorkflows(rampflow.temporal, movedQuery)) < count && Date.now() < deadline;
  )
    await sleep(250);
  const latencies: number[] = [];
  await forEachLimited(externalIds, 8, async (externalId) => {
    const woke = await wokeAt(rampflow.temporal, externalId);
    if (woke !== undefined) latencies.push(woke - sentAt.get(externalId)!);
  });
  return latencies;
}
