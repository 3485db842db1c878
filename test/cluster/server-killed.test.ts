/**
 * Fault, on the production topology: the Temporal server (every role, on PostgreSQL, 4 history shards)
 * killed outright (SIGKILL) while many journeys are under way, twice, and started again on the same
 * databases. Unlike a graceful stop it releases no shard and leaves its membership behind, so the new
 * process has to take the shards back. The worker process and the receiver stay up and reconnect by
 * themselves. Expected: every journey finishes a deposit each way with nothing lost or doubled.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
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

describe('the Temporal server killed mid-journey (cluster profile)', () => {
  it('loses and doubles nothing when the server is killed outright and started again, twice', async () => {
    await expectNothingLostThroughTwoOutages({
      stack,
      worker,
      prefix: 'server-killed',
      journeys: 20,
      timeoutMs: 300_000,
      async outage(random) {
        await stack.temporal.killServer();
        // Down for a moment, as under a supervisor that restarts it: the service keeps moving meanwhile.
        await pause(1_000 + random.next() * 3_000);
        await stack.temporal.startServer();
      },
    });
  });
});
