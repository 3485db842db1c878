/**
 * The infrastructure cases (Temporal restarted or killed, PostgreSQL restarted) are one case with a
 * different outage: journeys run against a worker process that stays up, the outage strikes twice
 * (while they onboard, and while deposits are in flight), and afterwards every journey has finished a
 * deposit each way with nothing lost or doubled, and nothing had to be restarted by hand.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { FAST_TIMINGS } from '../../support/test-journeys';
import { ONE_SECOND_AUTOPILOT } from './autopilot';
import { startFaultStack, type FaultStack, type FaultTemporal } from './fault-stack';
import { driveUntilDepositsFinish, startJourneys } from './journeys';
import { findProblems } from './ledger';
import { outageAtOnboardingAndInFlight } from './outages';
import { AUD_RAMPS, Partner } from './partner';
import { seededRandom } from './random';
import { startWorkerProcess, type WorkerProcess } from './worker-process';

export async function expectNothingLostThroughTwoOutages<T extends FaultTemporal>(options: {
  stack: FaultStack<T>;
  worker: WorkerProcess;
  /** Prefix of the journeys' externalIds. */
  prefix: string;
  journeys: number;
  timeoutMs: number;
  /** Takes the part down and brings it back (`random` for how long, so a seed replays it). */
  outage: (random: { next: () => number }) => Promise<void>;
  /** What else must have ridden out the outages without a restart (beyond the worker). */
  stillRunning?: () => void;
}): Promise<void> {
  const { stack, worker, journeys } = options;
  const random = seededRandom();
  const { client } = stack;
  const batch = await startJourneys({
    connection: stack.connection,
    taskQueue: stack.taskQueue,
    prefix: options.prefix,
    count: journeys,
    ramps: AUD_RAMPS,
    timings: FAST_TIMINGS,
  });
  const partner = new Partner(stack.service, new Set(batch.externalIds), AUD_RAMPS);

  const outages = outageAtOnboardingAndInFlight({ client, journeys, random, outage: () => options.outage(random) });
  await driveUntilDepositsFinish({ client, batch, partner, timeoutMs: options.timeoutMs });
  const struck = await outages;

  expect(struck, `seed ${random.seed}`).toHaveLength(2);
  for (const { at, finishedDeposits } of struck)
    expect(finishedDeposits, `seed ${random.seed}: the outage at ${at}`).toBeLessThan(journeys * 2);
  options.stillRunning?.();
  expect(worker.exited(), worker.output()).toBe(false);
  expect(await findProblems({ client, ramp: stack.service.ramp, batch, partner }), `seed ${random.seed}`).toEqual([]);
}

/**
 * The stack an outage case runs on (the service walking every step by itself, a second each; a worker
 * process that must ride the outages out), started before the file's cases and stopped after them.
 */
export function outageStackPerFile<T extends FaultTemporal>(
  startTemporal: () => Promise<T>,
): { stack: () => FaultStack<T>; worker: () => WorkerProcess } {
  let stack: FaultStack<T> | undefined;
  let worker: WorkerProcess | undefined;
  beforeAll(async () => {
    stack = await startFaultStack(
      { autopilot: ONE_SECOND_AUTOPILOT, audWhitelistDelaySeconds: 1, deliveryTickSeconds: 1 },
      startTemporal,
    );
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
  return { stack: () => stack!, worker: () => worker! };
}
