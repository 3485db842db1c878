/**
 * Fault: the Temporal dev server stopped and started again on its database file while many journeys
 * are under way, twice. The worker process and the receiver stay up and reconnect by themselves;
 * while Temporal is away the service carries on (the autopilot) and its deliveries meet 503s, which
 * the journeys' polls make up for. Expected: every journey finishes a deposit each way with nothing
 * lost or doubled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_TIMINGS } from '../support/test-journeys';
import { ONE_SECOND_AUTOPILOT } from './support/autopilot';
import { startFaultStack, type FaultStack } from './support/fault-stack';
import { driveUntilDepositsFinish, startJourneys } from './support/journeys';
import { findProblems } from './support/ledger';
import { outageAtOnboardingAndInFlight } from './support/outages';
import { AUD_RAMPS, Partner } from './support/partner';
import { seededRandom } from './support/random';
import { pause } from './support/until';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process';

const JOURNEYS = 20;

let stack: FaultStack;
let worker: WorkerProcess | undefined;

beforeAll(async () => {
  stack = await startFaultStack({
    autopilot: ONE_SECOND_AUTOPILOT,
    audWhitelistDelaySeconds: 1,
    deliveryTickSeconds: 1,
  });
  worker = startWorkerProcess({ temporalAddress: stack.temporal.address, taskQueue: stack.taskQueue, rampBaseUrl: stack.service.sandbox.url });
  await worker.started;
});
afterAll(async () => {
  await worker?.stop();
  await stack?.close();
});

describe('the Temporal server restarted mid-journey', () => {
  it('loses and doubles nothing when the server stops and starts again on its database file, twice', async () => {
    const random = seededRandom();
    const { client } = stack;
    const batch = await startJourneys({ connection: stack.connection, taskQueue: stack.taskQueue, prefix: 'restarted', count: JOURNEYS, ramps: AUD_RAMPS, timings: FAST_TIMINGS });
    const partner = new Partner(stack.service, new Set(batch.externalIds), AUD_RAMPS);

    const outages = outageAtOnboardingAndInFlight({
      client,
      journeys: JOURNEYS,
      random,
      async outage() {
        await stack.temporal.stop();
        // Down for a few seconds: the service keeps moving and delivering meanwhile.
        await pause(2_000 + random.next() * 3_000);
        await stack.temporal.start();
      },
    });

    await driveUntilDepositsFinish({ client, batch, partner, timeoutMs: 240_000 });
    const restarts = await outages;

    expect(restarts, `seed ${random.seed}`).toHaveLength(2);
    for (const { at, finishedDeposits: finished } of restarts) expect(finished, `seed ${random.seed}: the restart at ${at}`).toBeLessThan(JOURNEYS * 2);
    // The worker rode out both outages without being restarted.
    expect(worker!.exited(), worker!.output()).toBe(false);
    expect(await findProblems({ client, ramp: stack.service.ramp, batch, partner }), `seed ${random.seed}`).toEqual([]);
  });
});
