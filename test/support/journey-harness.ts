/**
 * Everything a journey test needs: the shared dev server, a sandbox, and a rampflow worker running
 * in this process on a task queue of its own.
 */
import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import { inject } from 'vitest';
import { createRampflowWorker } from '../../workers/worker';
import { journeyWorkflowId } from '../../workflows/ids';
import { JourneyInputSchema, type JourneyRequest } from '../../workflows/journey-input';
import { journeyStateQuery, type JourneyState } from '../../workflows/messages';
import type { customerJourney } from '../../workflows';
import type { SandboxOptions } from '../../sandbox';
import { startTestSandbox, type TestSandbox } from './sandbox';
import { connectClient, connectWorker, uniqueTaskQueue } from './temporal';

/** Test timings: seconds where production waits minutes or days. */
export const FAST_TIMINGS = {
  pollIntervalSeconds: 1,
  kycDeadlineSeconds: 120,
  accountsDeadlineSeconds: 120,
  depositPollIntervalSeconds: 1,
  depositStepDeadlineSeconds: 120,
};

export interface JourneyHarness extends TestSandbox {
  client: Client;
  taskQueue: string;
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  startJourney(request: Omit<JourneyRequest, 'customer'> & { customer?: Partial<JourneyRequest['customer']> }): Promise<WorkflowHandle<typeof customerJourney>>;
  /** Queries the journey until `accept` holds; fails with the last state seen after `timeoutMs`. */
  waitForJourney(handle: WorkflowHandle, accept: (state: JourneyState) => boolean, timeoutMs?: number): Promise<JourneyState>;
  close(): Promise<void>;
}

export async function startJourneyHarness(sandboxOptions: Partial<SandboxOptions> = {}): Promise<JourneyHarness> {
  const sandbox = await startTestSandbox(sandboxOptions);
  const { client, close: closeClient } = await connectClient();
  const taskQueue = uniqueTaskQueue('journey');
  let running: { worker: Worker; connection: NativeConnection; done: Promise<void> } | undefined;

  const harness: JourneyHarness = {
    ...sandbox,
    client,
    taskQueue,
    async startWorker() {
      const connection = await connectWorker();
      const worker = await createRampflowWorker({
        connection,
        namespace: 'default',
        taskQueue,
        ramp: sandbox.ramp,
        workflowBundle: { codePath: inject('workflowBundlePath') },
        shutdownGraceTime: '2 seconds',
      });
      running = { worker, connection, done: worker.run() };
    },
    async stopWorker() {
      if (!running) return;
      running.worker.shutdown();
      await running.done;
      await running.connection.close();
      running = undefined;
    },
    async startJourney(request) {
      const externalId = request.customer?.externalId ?? `user-${randomUUID()}`;
      const input = JourneyInputSchema.parse({
        ...request,
        customer: { realName: 'Ada Lovelace', email: 'ada@example.com', ...request.customer, externalId },
        timings: { ...FAST_TIMINGS, ...request.timings },
      });
      return client.workflow.start<typeof customerJourney>('customerJourney', {
        taskQueue,
        workflowId: journeyWorkflowId(externalId),
        args: [input],
      });
    },
    async waitForJourney(handle, accept, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      let last: JourneyState | undefined;
      for (;;) {
        last = await handle.query(journeyStateQuery);
        if (accept(last)) return last;
        if (Date.now() > deadline) throw new Error(`journey never reached the expected state; last state:\n${JSON.stringify(last, null, 2)}`);
        await new Promise((wake) => setTimeout(wake, 100));
      }
    },
    async close() {
      await harness.stopWorker();
      await closeClient();
      await sandbox.close();
    },
  };
  await harness.startWorker();
  return harness;
}
