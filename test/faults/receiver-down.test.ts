/**
 * Fault: the webhook receiver down while the service delivers, once during onboarding and once while
 * the money moves. The deliveries fail (connection refused), the service keeps them and retries on
 * its own clock (10 minutes later), and once the receiver is back the retries carry every event.
 * The journeys poll only once an hour here, so the events are all that can move them; the sandbox's
 * clock is frozen and advanced by the case. Expected: nothing moves while the receiver is down, and
 * afterwards every journey finishes a deposit each way with nothing lost or doubled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allDeliveries, type DeliveryLog } from '../webhooks/support/receiver';
import { ONE_SECOND_AUTOPILOT } from './support/autopilot';
import { EVENTS_ONLY_DEPOSIT_TIMINGS, EVENTS_ONLY_TIMINGS } from './support/events-only';
import { startFaultStack, type FaultStack } from './support/fault-stack';
import { startTemporalOnFile } from './support/temporal-on-file';
import { startInProcessWorker, type InProcessWorker } from './support/in-process-worker';
import { driveUntilDepositsFinish, startedDeposits, startJourneys, type JourneyBatch } from './support/journeys';
import { findProblems } from './support/ledger';
import { Partner, USD_RAMPS } from './support/partner';
import { until } from './support/until';

const JOURNEYS = 12;
/** The service's delivery scheduler runs each minute; one advance is one run. */
const MINUTE = 60;
/** The service's first retry comes ten minutes after a failed attempt. */
const FIRST_RETRY = 10 * 60;

let stack: FaultStack;
let worker: InProcessWorker | undefined;

beforeAll(async () => {
  stack = await startFaultStack(
    { clock: { frozen: true }, autopilot: ONE_SECOND_AUTOPILOT },
    startTemporalOnFile,
    EVENTS_ONLY_DEPOSIT_TIMINGS,
  );
  worker = await startInProcessWorker({
    temporalAddress: stack.temporal.address,
    taskQueue: stack.taskQueue,
    ramp: stack.service.ramp,
    depositTimings: EVENTS_ONLY_DEPOSIT_TIMINGS,
  });
});
afterAll(async () => {
  await worker?.stop();
  await stack?.close();
});

const advance = (seconds: number) => stack.service.sandbox.clock.advance(seconds);

async function stages(batch: JourneyBatch): Promise<string[]> {
  return Promise.all(batch.externalIds.map(async (externalId) => (await batch.rampflow.getJourney(externalId)).stage));
}

/** Deliveries still pending whose every attempt failed, counted by event name. */
function undelivered(log: DeliveryLog): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const delivery of log) {
    if (
      delivery.status === 'PENDING' &&
      delivery.attempts.length > 0 &&
      delivery.attempts.every((attempt) => attempt.outcome === 'FAILED')
    )
      counts[delivery.event] = (counts[delivery.event] ?? 0) + 1;
  }
  return counts;
}

describe('the webhook receiver down while the service delivers', () => {
  it("gets every event through on the service's retries once it is back, and nothing is lost or doubled", async () => {
    const { client, service, receiver } = stack;
    const externalIds = Array.from({ length: JOURNEYS }, (_, index) => `receiver-down-${index}`);
    const partner = new Partner(service, new Set(externalIds), USD_RAMPS);
    for (const externalId of externalIds) await partner.signUp(externalId);
    const batch = await startJourneys({
      connection: stack.connection,
      taskQueue: stack.taskQueue,
      prefix: 'receiver-down',
      count: JOURNEYS,
      ramps: USD_RAMPS,
      timings: EVENTS_ONLY_TIMINGS,
    });
    await until(
      'every journey waiting for KYC',
      async () => ((await stages(batch)).every((stage) => stage === 'AWAITING_KYC') ? true : undefined),
      { timeoutMs: 60_000, describe: async () => (await stages(batch)).join() },
    );

    // ---- outage 1: the service approves every customer and cannot tell anyone ----
    await receiver.stop();
    await advance(MINUTE); // KYC submitted and approved; CUSTOMER_APPROVED's first attempt fails
    await advance(MINUTE);
    expect(undelivered(await allDeliveries(service.ramp))).toEqual({ CUSTOMER_APPROVED: JOURNEYS });
    for (const externalId of externalIds)
      expect((await service.ramp.customers.detail({ externalId })).status).toBe('APPROVED');
    expect(await stages(batch)).toEqual(externalIds.map(() => 'AWAITING_KYC'));

    // ---- back: the first retry carries the approvals, and the journeys set up their ramps ----
    await receiver.start();
    await advance(FIRST_RETRY);
    await until(
      'every journey ACTIVE on events',
      async () => {
        await advance(MINUTE); // the accounts' approvals and their events
        return (await stages(batch)).every((stage) => stage === 'ACTIVE') ? true : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500, describe: async () => (await stages(batch)).join() },
    );

    // ---- outage 2: every deposit is paid in, confirmed, traded and paid out; no one hears of it ----
    await receiver.stop();
    await until(
      'the partner paying in each way for every customer',
      async () => {
        await partner.playOnce();
        await advance(MINUTE);
        return [...partner.deposits.values()].filter((paid) => paid.onramp && paid.offramp).length === JOURNEYS
          ? true
          : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    await advance(MINUTE);
    await advance(MINUTE);
    expect(undelivered(await allDeliveries(service.ramp))).toEqual({
      DEPOSIT_RECEIVED: 2 * JOURNEYS,
      DEPOSIT_APPROVED: 2 * JOURNEYS,
      TRADE_CREATED: 2 * JOURNEYS,
      TRADE_SETTLED: 2 * JOURNEYS,
      PAYMENT_SETTLED: JOURNEYS,
    });
    expect(await startedDeposits(client)).toBe(0);

    // ---- back: the retries carry the whole backlog at once, newest after oldest ----
    await receiver.start();
    await advance(FIRST_RETRY);
    await driveUntilDepositsFinish({
      client,
      batch,
      partner,
      timeoutMs: 180_000,
      round: async () => void (await advance(MINUTE)),
    });

    expect(undelivered(await allDeliveries(service.ramp))).toEqual({});
    expect(await findProblems({ client, ramp: service.ramp, batch, partner })).toEqual([]);
  });
});
