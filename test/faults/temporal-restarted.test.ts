/**
 * Fault: the Temporal dev server stopped and started again on its database file while many journeys
 * are under way, twice. The worker process and the receiver stay up and reconnect by themselves;
 * while Temporal is away the service carries on (the autopilot) and its deliveries meet 503s, which
 * the journeys' polls make up for. Expected: every journey finishes a deposit each way with nothing
 * lost or doubled.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ONE_SECOND_AUTOPILOT } from './support/autopilot';
import { startFaultStack, type FaultStack } from './support/fault-stack';
import { expectNothingLostThroughTwoOutages } from './support/outage-case';
import { pause } from './support/until';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process';

let stack: FaultStack;
let worker: WorkerProcess;

beforeAll(async () => {
  stack = await startFaultStack({
    autopilot: ONE_SECOND_AUTOPILOT,
    audWhitelistDelaySeconds: 1,
    deliveryTickSeconds: 1,
  });
  worker = startWorkerProcess({
    temporalAddress: stack.temporal.address,
    taskQueue: stack.taskQueue,
    rampBaseUrl: stack.service.sandbox.url,
  });
  await worker.started;
});
afterAll(async () => {
  await worker?.stop();
  await stack?.close();
});

describe('the Temporal server restarted mid-journey', () => {
  it('loses and doubles nothing when the server stops and starts again on its database file, twice', async () => {
    await expectNothingLostThroughTwoOutages({
      stack,
      worker,
      prefix: 'restarted',
      journeys: 20,
      timeoutMs: 240_000,
      async outage(random) {
        await stack.temporal.stop();
        // Down for a few seconds: the service keeps moving and delivering meanwhile.
        await pause(2_000 + random.next() * 3_000);
        await stack.temporal.start();
      },
    });
  });
});
