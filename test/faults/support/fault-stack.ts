/**
 * What every fault case runs on: its own Temporal (by default a dev server on a database file, so the
 * case can restart it; the cluster cases pass their own Temporal server on PostgreSQL), the sandbox as the service, a Temporal client, and the webhook receiver registered with
 * the sandbox for every event. The worker is the case's choice (a child process it can kill, or one
 * in this process with a client it configures).
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { Logger } from 'pino';
import { dataConverterFromEnv } from '../../../codec';
import type { SandboxOptions } from '../../../sandbox';
import type { DepositTimings } from '../../../workflows/schemas';
import type { RampEventTimings } from '../../../workflows/ramp-event/events';
import { registerWebhooks } from '../../../webhooks/registration';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox';
import type { ReceiverBudgetOptions } from '../../../webhooks/receiver-budget';
import { startRestartableReceiver, type RestartableReceiver } from './receiver';
import { startTemporalOnFile, type TemporalOnFile } from './temporal-on-file';

/** What the stack needs of the case's Temporal: where it is, and how to end it for good. */
export interface FaultTemporal {
  address: string;
  close(): Promise<void>;
}

export interface FaultStack<T extends FaultTemporal = TemporalOnFile> {
  temporal: T;
  service: TestSandbox;
  /** Lazy: it finds the server again after a restart. */
  connection: Connection;
  client: Client;
  taskQueue: string;
  receiver: RestartableReceiver;
  /** Stops everything the stack started, last first; the case stops its own worker before. */
  close(): Promise<void>;
}

/**
 * `receiverDepositTimings`: the timings of the deposits the receiver starts when it routes an event
 * directly; give the same as the case's worker (the test default when omitted). `receiverEventTimings`:
 * over the stack's ramp-event timings. `receiverLogger`: where the receiver's request lines go (silent when omitted).
 */
export async function startFaultStack(sandboxOptions: Partial<SandboxOptions>): Promise<FaultStack>;
export async function startFaultStack<T extends FaultTemporal>(
  sandboxOptions: Partial<SandboxOptions>,
  startTemporal: () => Promise<T>,
  receiverDepositTimings?: Partial<DepositTimings>,
  receiverEventTimings?: Partial<RampEventTimings>,
  receiverLogger?: Logger,
  receiverBudget?: Partial<ReceiverBudgetOptions>,
): Promise<FaultStack<T>>;
export async function startFaultStack(
  sandboxOptions: Partial<SandboxOptions>,
  startTemporal: () => Promise<FaultTemporal> = startTemporalOnFile,
  receiverDepositTimings?: Partial<DepositTimings>,
  receiverEventTimings?: Partial<RampEventTimings>,
  receiverLogger?: Logger,
  receiverBudget?: Partial<ReceiverBudgetOptions>,
): Promise<FaultStack<FaultTemporal>> {
  const temporal = await startTemporal();
  const service = await startTestSandbox(sandboxOptions);
  const connection = Connection.lazy({ address: temporal.address });
  const client = new Client({ connection, dataConverter: dataConverterFromEnv() });
  const taskQueue = `faults-${randomUUID()}`;
  const receiver = await startRestartableReceiver({
    client,
    taskQueue,
    ...(receiverDepositTimings ? { depositTimings: receiverDepositTimings } : {}),
    ...(receiverEventTimings ? { eventTimings: receiverEventTimings } : {}),
    ...(receiverLogger ? { logger: receiverLogger } : {}),
    ...(receiverBudget ? { budget: receiverBudget } : {}),
  });
  await registerWebhooks(service.ramp, { callbackUrl: receiver.webhookUrl, rampBaseUrl: service.sandbox.url });
  return {
    temporal,
    service,
    connection,
    client,
    taskQueue,
    receiver,
    async close() {
      await receiver.stop();
      await connection.close();
      await service.close();
      await temporal.close();
    },
  };
}
