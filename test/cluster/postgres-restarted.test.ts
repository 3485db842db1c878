/**
 * Fault, on the production topology: PostgreSQL, which holds every history and the visibility index,
 * stopped (fast shutdown: every open session cut) and started again while many journeys are under
 * way, twice. The Temporal server is not restarted: it must ride out the lost connections and carry
 * on, as must the worker and the receiver. Expected: every journey finishes a deposit each way with
 * nothing lost or doubled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ONE_SECOND_AUTOPILOT } from '../faults/support/autopilot';
import { startFaultStack, type FaultStack } from '../faults/support/fault-stack';
import { driveUntilDepositsFinish, startJourneys } from '../faults/support/journeys';
import { findProblems } from '../faults/support/ledger';
import { outageAtOnboardingAndInFlight } from '../faults/support/outages';
import { AUD_RAMPS, Partner } from '../faults/support/partner';
import { seededRandom } from '../faults/support/random';
import { pause } from '../faults/support/until';
import { startWorkerProcess, type WorkerProcess } from '../faults/support/worker-process';
import { FAST_TIMINGS } from '../support/test-journeys';
import { startTemporaryCluster, type TemporaryCluster } from '../../dev/temporary-cluster';

const JOURNEYS = 20;

let stack: FaultStack<TemporaryCluster>;
let worker: WorkerProcess | undefined;

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
    const random = seededRandom();
    const { client } = stack;
    const batch = await startJourneys({ connection: stack.connection, taskQueue: stack.taskQueue, prefix: 'postgres-restarted', count: JOURNEYS, ramps: AUD_RAMPS, timings: FAST_TIMINGS });
    const partner = new Partner(stack.service, new Set(batch.externalIds), AUD_RAMPS);

    const outages = outageAtOnboardingAndInFlight({
      client,
      journeys: JOURNEYS,
      random,
      async outage() {
        await stack.temporal.postgres.stop();
        await pause(2_000 + random.next() * 3_000);
        await stack.temporal.postgres.start();
      },
    });

    await driveUntilDepositsFinish({ client, batch, partner, timeoutMs: 300_000 });
    const restarts = await outages;

    expect(restarts, `seed ${random.seed}`).toHaveLength(2);
    for (const { at, finishedDeposits: finished } of restarts) expect(finished, `seed ${random.seed}: the restart at ${at}`).toBeLessThan(JOURNEYS * 2);
    // The server, the worker and the receiver rode out both outages without being restarted.
    expect(stack.temporal.serverRunning(), 'the Temporal server exited').toBe(true);
    expect(worker!.exited(), worker!.output()).toBe(false);
    expect(await findProblems({ client, ramp: stack.service.ramp, batch, partner }), `seed ${random.seed}`).toEqual([]);
  });
});
