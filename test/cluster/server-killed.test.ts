/**
 * Fault, on the production topology: the Temporal server (every role, on PostgreSQL, 4 history shards)
 * killed outright (SIGKILL) while many journeys are under way, twice, and started again on the same
 * databases. Unlike a graceful stop it releases no shard and leaves its membership behind, so the new
 * process has to take the shards back. The worker process and the receiver stay up and reconnect by
 * themselves. Expected: every journey finishes a deposit each way with nothing lost or doubled.
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

describe('the Temporal server killed mid-journey (cluster profile)', () => {
  it('loses and doubles nothing when the server is killed outright and started again, twice', async () => {
    const random = seededRandom();
    const { client } = stack;
    const batch = await startJourneys({ connection: stack.connection, taskQueue: stack.taskQueue, prefix: 'server-killed', count: JOURNEYS, ramps: AUD_RAMPS, timings: FAST_TIMINGS });
    const partner = new Partner(stack.service, new Set(batch.externalIds), AUD_RAMPS);

    const outages = outageAtOnboardingAndInFlight({
      client,
      journeys: JOURNEYS,
      random,
      async outage() {
        await stack.temporal.killServer();
        // Down for a moment, as under a supervisor that restarts it: the service keeps moving meanwhile.
        await pause(1_000 + random.next() * 3_000);
        await stack.temporal.startServer();
      },
    });

    await driveUntilDepositsFinish({ client, batch, partner, timeoutMs: 300_000 });
    const kills = await outages;

    expect(kills, `seed ${random.seed}`).toHaveLength(2);
    for (const { at, finishedDeposits: finished } of kills) expect(finished, `seed ${random.seed}: the kill at ${at}`).toBeLessThan(JOURNEYS * 2);
    expect(worker!.exited(), worker!.output()).toBe(false);
    expect(await findProblems({ client, ramp: stack.service.ramp, batch, partner }), `seed ${random.seed}`).toEqual([]);
  });
});
