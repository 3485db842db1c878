/**
 * Fault: the service refuses the worker's key for a while (UNAUTHORISED on every call), as when the
 * partner rotates a key before the worker has the new secret. The partner's own systems use another
 * key pair and carry on. Expected: it is one incident, not a park per workflow: no journey or deposit
 * parks, the worker logs the outage once (naming what to check, never the secret) and its end once,
 * and every journey completes a deposit each way once the key works again, nothing lost or doubled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PARTNER } from '../support/sandbox';
import { FAST_TIMINGS } from '../support/test-journeys';
import { ONE_SECOND_AUTOPILOT } from './support/autopilot';
import { startFaultStack, type FaultStack } from './support/fault-stack';
import { driveUntilDepositsFinish, startJourneys } from './support/journeys';
import { findProblems } from './support/ledger';
import { AUD_RAMPS, Partner } from './support/partner';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process';

const JOURNEYS = 12;
const OUTAGE_MS = 30_000;
/** The worker's own key pair of the test partner's. */
const WORKER_KEY = { apiKey: 'worker-key', apiSecret: 'worker-secret-0123456789', partnerId: TEST_PARTNER.apiKey };
const OUTAGE_LINE = /every call to the ramp service fails: the service refuses our signature/g;
const RECOVERY_LINE = /the ramp service answers again/g;

let stack: FaultStack;
let worker: WorkerProcess | undefined;

beforeAll(async () => {
  stack = await startFaultStack({
    autopilot: ONE_SECOND_AUTOPILOT,
    audWhitelistDelaySeconds: 1,
    deliveryTickSeconds: 1,
    partners: [TEST_PARTNER, WORKER_KEY],
  });
  // All of its output: the case counts the outage lines in it.
  worker = startWorkerProcess({
    temporalAddress: stack.temporal.address,
    taskQueue: stack.taskQueue,
    rampBaseUrl: stack.service.sandbox.url,
    credentials: WORKER_KEY,
    keepOutputChars: 64 * 1024 * 1024,
  });
  await worker.started;
});
afterAll(async () => {
  await worker?.stop();
  await stack?.close();
});

/** Journeys and deposits parked for an operator (visibility; needs no worker). */
async function parked(stack: FaultStack): Promise<number> {
  const { count } = await stack.client.workflow.count(
    "WorkflowType IN ('customerJourney', 'depositLifecycle') AND RampStage = 'NEEDS_ATTENTION'",
  );
  return count;
}

describe("the worker's key refused for a while", () => {
  it('parks nothing, reports one incident, and resumes by itself once the key works', async () => {
    const { client, service } = stack;
    const refuse = { path: '*', kind: 'UNAUTHORISED' as const, apiKey: WORKER_KEY.apiKey };
    const batch = await startJourneys({
      connection: stack.connection,
      taskQueue: stack.taskQueue,
      prefix: 'unauthorised',
      count: JOURNEYS,
      ramps: AUD_RAMPS,
      timings: FAST_TIMINGS,
    });
    const partner = new Partner(service, new Set(batch.externalIds), AUD_RAMPS);
    // The outage starts once the journeys are under way (customers created, deposits on their way).
    await service.control.injectFault({ ...refuse, count: 100_000 });
    const outageEndsAt = Date.now() + OUTAGE_MS;
    let outage = true;
    let mostParked = 0;
    let refused = 0;

    await driveUntilDepositsFinish({
      client,
      batch,
      partner,
      timeoutMs: 240_000,
      round: async () => {
        mostParked = Math.max(mostParked, await parked(stack).catch(() => 0));
        if (outage && Date.now() > outageEndsAt) {
          const [left] = await service.control.pendingFaults();
          refused = 100_000 - (left?.remaining ?? 100_000);
          await service.control.injectFault({ ...refuse, count: 0 });
          outage = false;
        }
      },
    });

    expect(outage, 'the deposits finished before the outage ended: it proved nothing').toBe(false);
    expect(refused, 'calls the service refused during the outage').toBeGreaterThan(20);
    expect(mostParked).toBe(0);
    expect(await parked(stack)).toBe(0);
    const output = worker!.output();
    expect(output.match(OUTAGE_LINE)?.length, output.slice(-5_000)).toBe(1);
    expect(output.match(RECOVERY_LINE)?.length, output.slice(-5_000)).toBe(1);
    expect(output).not.toContain(WORKER_KEY.apiSecret);
    expect(await findProblems({ client, ramp: service.ramp, batch, partner })).toEqual([]);
  });
});
