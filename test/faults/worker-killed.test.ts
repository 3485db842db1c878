/**
 * Fault: the worker process killed outright (SIGKILL) at random points of many journeys, and
 * restarted, several times. In-flight workflow tasks and activities vanish with it; Temporal hands
 * them to the next worker once their timeouts pass, and every activity that creates something looks
 * it up first. Expected: every journey finishes a deposit each way with nothing lost or doubled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_TIMINGS } from '../support/test-journeys';
import { ONE_SECOND_AUTOPILOT } from './support/autopilot';
import { startFaultStack, type FaultStack } from './support/fault-stack';
import {
  activeJourneys,
  driveUntilDepositsFinish,
  finishedDeposits,
  startedDeposits,
  startJourneys,
} from './support/journeys';
import { findProblems } from './support/ledger';
import { AUD_RAMPS, Partner } from './support/partner';
import { seededRandom } from './support/random';
import { pause, until } from './support/until';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process';

const JOURNEYS = 24;

let stack: FaultStack;
let worker: WorkerProcess | undefined;

beforeAll(async () => {
  // The service walks every step by itself, a second each, and delivers every second.
  stack = await startFaultStack({
    autopilot: ONE_SECOND_AUTOPILOT,
    audWhitelistDelaySeconds: 1,
    deliveryTickSeconds: 1,
  });
});
afterAll(async () => {
  await worker?.stop();
  await stack?.close();
});

describe('the worker killed mid-journey', () => {
  it('loses and doubles nothing when killed at random points of many journeys and restarted, again and again', async () => {
    const random = seededRandom();
    const { client } = stack;
    const startWorker = async () => {
      worker = startWorkerProcess({
        temporalAddress: stack.temporal.address,
        taskQueue: stack.taskQueue,
        rampBaseUrl: stack.service.sandbox.url,
      });
      await worker.started;
    };
    await startWorker();
    const batch = await startJourneys({
      connection: stack.connection,
      taskQueue: stack.taskQueue,
      prefix: 'killed',
      count: JOURNEYS,
      ramps: AUD_RAMPS,
      timings: FAST_TIMINGS,
    });
    const partner = new Partner(stack.service, new Set(batch.externalIds), AUD_RAMPS);

    // Kills at random moments, a few seconds apart while the journeys are onboarding (they are
    // staggered, so each kill catches them at different stages), and one more once the money moves.
    // A killed worker's activities stall until their start-to-close timeouts (up to a minute); the
    // kills overlap those stalls so the case stays short.
    const kills: { at: string; finishedDeposits: number }[] = [];
    const kill = async (at: string) => {
      kills.push({ at, finishedDeposits: await finishedDeposits(client) });
      await worker!.kill();
      await startWorker();
    };
    const chaos = (async () => {
      for (let slot = 0; slot < 3; slot += 1) {
        await pause(4_000 + random.next() * 6_000);
        await kill(`onboarding ${slot + 1}, ${await activeJourneys(client)} journeys ACTIVE`);
      }
      const depositsInFlight = async () => {
        const [started, finished] = [await startedDeposits(client), await finishedDeposits(client)];
        return started >= JOURNEYS / 2 && started > finished ? true : undefined;
      };
      await until('deposits in flight', depositsInFlight, { timeoutMs: 240_000 });
      await pause(random.next() * 2_000);
      await kill(`deposits in flight, ${await startedDeposits(client)} started`);
    })();

    await driveUntilDepositsFinish({ client, batch, partner, timeoutMs: 240_000 });
    await chaos;

    // Every kill struck while work was in flight, so there was something to lose.
    expect(kills, `seed ${random.seed}`).toHaveLength(4);
    for (const { at, finishedDeposits: finished } of kills)
      expect(finished, `seed ${random.seed}: the kill at ${at}`).toBeLessThan(JOURNEYS * 2);
    expect(await findProblems({ client, ramp: stack.service.ramp, batch, partner }), `seed ${random.seed}`).toEqual([]);
  });
});
