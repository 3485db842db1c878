/**
 * Temporal goes down while the service is delivering: the receiver answers 503, the service keeps the
 * event and retries it (ten minutes later on its clock), and once Temporal is back the retry lands and
 * moves the journey. This test runs its own dev server, with a database file so that the journey
 * survives the restart, and drives the sandbox's retry with its virtual clock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { dataConverterFromEnv } from '../../codec';
import { type DevServer, startDevServer } from '../../dev/dev-server';
import { freePort } from '../../dev/ports';
import { registerWebhooks } from '../../webhooks/registration';
import { createRampflowWorker, type RampflowWorker } from '../../workers/worker';
import { type JourneyState, journeyStateQuery, journeyWorkflowId } from '../../workflows/common/messages';
import { JourneyInputSchema } from '../../workflows/schemas';
import { startTestSandbox, type TestSandbox } from '../support/sandbox';
import { uniqueTaskQueue } from '../support/temporal';
import { deliveriesOf, eventually, signalsReceived, startReceiver, type TestReceiver } from './support/receiver';

const taskQueue = uniqueTaskQueue('outage');
let dir: string;
let port: number;
let server: DevServer | undefined;
let sandbox: TestSandbox;
let receiverConnection: Connection;
let receiver: TestReceiver;
let running: { worker: RampflowWorker; connection: NativeConnection; done: Promise<void> } | undefined;

async function startServer(): Promise<void> {
  server = await startDevServer({ port, headless: true, dbFile: join(dir, 'temporal.db') });
}

async function startWorker(): Promise<void> {
  const connection = await NativeConnection.connect({ address: server!.address });
  const worker = await createRampflowWorker({
    connection,
    namespace: 'default',
    taskQueue,
    ramp: sandbox.ramp,
    dataConverter: dataConverterFromEnv(),
    workflowBundle: { codePath: inject('workflowBundlePath') },
    shutdownGraceTime: '1 second',
  });
  running = { worker, connection, done: worker.run() };
}

async function stopWorker(): Promise<void> {
  if (!running) return;
  running.worker.shutdown();
  await running.done;
  await running.connection.close();
  running = undefined;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rampflow-outage-'));
  port = await freePort();
  await startServer();
  sandbox = await startTestSandbox({ clock: { frozen: true } });
  await startWorker();
  // The receiver's connection is lazy, as in `rampflow webhooks serve`: it survives the outage.
  receiverConnection = Connection.lazy({ address: server!.address });
  receiver = await startReceiver({
    client: new Client({ connection: receiverConnection, dataConverter: dataConverterFromEnv() }),
    taskQueue,
    handoffTimeoutMs: 3_000,
  });
  await registerWebhooks(sandbox.ramp, { callbackUrl: receiver.webhookUrl, rampBaseUrl: sandbox.sandbox.url });
});

afterAll(async () => {
  await stopWorker();
  await receiver?.close();
  await receiverConnection?.close();
  await sandbox?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a Temporal outage', () => {
  it("is answered with 503, and the service's retry delivers the event once Temporal is back", async () => {
    const connection = await Connection.connect({ address: server!.address });
    const client = new Client({ connection, dataConverter: dataConverterFromEnv() });
    const externalId = `outage-${Date.now()}`;
    const handle = await client.workflow.start('customerJourney', {
      taskQueue,
      workflowId: journeyWorkflowId(externalId),
      // Polls an hour apart: only the event can move this journey past KYC.
      args: [
        JourneyInputSchema.parse({
          customer: { externalId, realName: 'Grace Hopper', email: 'grace@example.com' },
          timings: { pollIntervalSeconds: 3600, kycDeadlineSeconds: 86_400 },
        }),
      ],
    });
    const awaitingKyc = await eventually(
      () => handle.query(journeyStateQuery),
      (state: JourneyState) => state.stage === 'AWAITING_KYC',
      'the journey waiting for KYC',
    );
    const customerId = awaitingKyc.customer.id!;
    await connection.close();

    await stopWorker();
    await server!.stop();
    server = undefined;

    // The service approves the customer and delivers: the receiver cannot hand over, so it answers 503.
    await sandbox.control.approveCustomer(customerId);
    await sandbox.sandbox.clock.advance(60);
    let [delivery] = await deliveriesOf(sandbox.ramp, customerId);
    expect(delivery).toMatchObject({
      event: 'CUSTOMER_APPROVED',
      status: 'PENDING',
      attempts: [{ outcome: 'FAILED', httpStatus: 503 }],
    });

    await startServer();
    await startWorker();
    // Wait until the receiver's own connection reaches the restarted server, and the server answers for
    // the journey (a server still loading its state can call it not found, and the receiver would then
    // hand the event to a ramp-event workflow instead), before the retry is due.
    const receiversView = new Client({ connection: receiverConnection }).workflow.getHandle(
      journeyWorkflowId(externalId),
    );
    await eventually(
      () =>
        receiversView.describe().then(
          (description) => description.status.name === 'RUNNING',
          () => false,
        ),
      (reachable) => reachable,
      'the receiver reaching the journey on the restarted Temporal',
    );

    // The retry policy's first retry, ten minutes later on the service's clock.
    await sandbox.sandbox.clock.advance(10 * 60);
    [delivery] = await deliveriesOf(sandbox.ramp, customerId);
    expect(delivery).toMatchObject({
      status: 'DELIVERED',
      attempts: [{ httpStatus: 503 }, { outcome: 'DELIVERED', httpStatus: 200 }],
    });

    const after = await Connection.connect({ address: server!.address });
    try {
      const restarted = new Client({ connection: after, dataConverter: dataConverterFromEnv() });
      const journey = restarted.workflow.getHandle(journeyWorkflowId(externalId));
      // The receiver routed the retried delivery straight to the journey.
      expect(await signalsReceived(journey)).toContainEqual({
        name: 'customerEvent',
        key: `CUSTOMER_APPROVED/${customerId}`,
      });
      const state = await eventually(
        () => journey.query(journeyStateQuery),
        (s: JourneyState) => s.stage === 'ACTIVE',
        'the journey moving past KYC',
      );
      expect(state.customer.status).toBe('APPROVED');
      await journey.terminate('test over');
    } finally {
      await after.close();
    }
  });
});
