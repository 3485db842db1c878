/**
 * Fault, on the production topology: PostgreSQL, which holds every history and the visibility index,
 * stopped (fast shutdown: every open session cut) and started again while many journeys are under
 * way, twice. The Temporal server is not restarted: it must ride out the lost connections and carry
 * on, as must the worker and the receiver. Expected: every journey finishes a deposit each way with
 * nothing lost or doubled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTemporaryCluster, type TemporaryCluster } from '../../dev/temporary-cluster';
import { ONE_SECOND_AUTOPILOT } from '../faults/support/autopilot';
import { startFaultStack, type FaultStack } from '../faults/support/fault-stack';
import { expectNothingLostThroughTwoOutages } from '../faults/support/outage-case';
import { pause } from '../faults/support/until';
import { startWorkerProcess, type WorkerProcess } from '../faults/support/worker-process';

let stack: FaultStack<TemporaryCluster>;
let worker: WorkerProcess;

beforeAll(async () => {
  stack = await startFaultStack({ autopilot: ONE_SECOND_AUTOPILOT, audWhitelistDelaySeconds: 1, deliveryTickSeconds: 1 }, startTemporaryCluster);
  worker = startWorkerProcess({ temporalAddress: stack.temporal.address, taskQueue: stack.taskQueue, rampBaseUrl: stack.service.sandbox.url });
  await worker.started;
});
afterAll(async () => {
  await worker?.stop();
  await stack?.close();
});

describe('PostgreSQL restarted mid-journey (cluster profile)', () => {
  it('loses and doubles nothing when the database stops and starts again under the running server, twice', async () => {
    await expectNothingLostThroughTwoOutages({
      stack,
      worker,
      prefix: 'postgres-restarted',
      journeys: 20,
      timeoutMs: 300_000,
      async outage(random) {
        await stack.temporal.postgres.stop();
        await pause(2_000 + random.next() * 3_000);
        await stack.temporal.postgres.start();
      },
      // The server, too, rode out both outages without being restarted.
      stillRunning: () => expect(stack.temporal.serverRunning(), 'the Temporal server exited').toBe(true),
    });
  });
});
