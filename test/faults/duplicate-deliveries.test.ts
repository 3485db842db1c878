/**
 * Fault: duplicate and out-of-order delivery at volume. Every event is delivered twice
 * (`duplicateDeliveries`) under each of two names (the partner is subscribed under the new and the
 * older names), so four times, and the events due in one scheduler run arrive newest first
 * (`outOfOrderDeliveries`). Only events move
 * the journeys (polls an hour apart). Expected: every event reaches its target once, and every
 * journey finishes a deposit each way with nothing lost or doubled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_NAMES, LEGACY_EVENT_NAMES } from '../../ramp/events';
import { DEFAULT_RECEIVER_BUDGET } from '../../webhooks/receiver-budget';
import { depositWorkflowId, journeyWorkflowId } from '../../workflows/common/messages';
import { allDeliveries, signalsReceived } from '../webhooks/support/receiver';
import { ONE_SECOND_AUTOPILOT } from './support/autopilot';
import { EVENTS_ONLY_DEPOSIT_TIMINGS, EVENTS_ONLY_TIMINGS } from './support/events-only';
import { startFaultStack, type FaultStack } from './support/fault-stack';
import { startTemporalOnFile } from './support/temporal-on-file';
import { startInProcessWorker, type InProcessWorker } from './support/in-process-worker';
import { driveUntilDepositsFinish, startJourneys } from './support/journeys';
import { findProblems } from './support/ledger';
import { Partner, USD_RAMPS } from './support/partner';

const JOURNEYS = 20;

/**
 * Production's receiver budget for each copy: the service here sends every event four times, within
 * seconds of real time (each round is a minute of the sandbox's clock), so production's rates, met by
 * one copy of each, would answer 429 to the copies of a fast run: those wait out the service's
 * 10-minute retry, and the case is about applying copies once, not about the budget (its own cases:
 * test/webhooks/receiver-budget.test.ts and the leaked-token fault case).
 */
const FOUR_COPIES_BUDGET = {
  source: { perSecond: 4 * DEFAULT_RECEIVER_BUDGET.source.perSecond, burst: 4 * DEFAULT_RECEIVER_BUDGET.source.burst },
  target: { perSecond: 4 * DEFAULT_RECEIVER_BUDGET.target.perSecond, burst: 4 * DEFAULT_RECEIVER_BUDGET.target.burst },
  starts: { perSecond: 4 * DEFAULT_RECEIVER_BUDGET.starts.perSecond, burst: 4 * DEFAULT_RECEIVER_BUDGET.starts.burst },
};

let stack: FaultStack;
let worker: InProcessWorker | undefined;

beforeAll(async () => {
  stack = await startFaultStack(
    { clock: { frozen: true }, autopilot: ONE_SECOND_AUTOPILOT, duplicateDeliveries: true, outOfOrderDeliveries: true },
    startTemporalOnFile,
    EVENTS_ONLY_DEPOSIT_TIMINGS,
    undefined,
    undefined,
    FOUR_COPIES_BUDGET,
  );
  await stack.service.ramp.subscribedEvents.set([...EVENT_NAMES, ...Object.keys(LEGACY_EVENT_NAMES)]);
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

/** Event keys a workflow was signalled with more than once (its own progress reports aside). */
async function keysSignalledTwice(workflowId: string): Promise<string[]> {
  const keys = (await signalsReceived(stack.client.workflow.getHandle(workflowId))).flatMap((signal) =>
    signal.key ? [signal.key] : [],
  );
  return keys.filter((key, index) => keys.indexOf(key) !== index);
}

describe('duplicate and out-of-order delivery at volume', () => {
  it('applies every event once, whatever the number and order of its deliveries', async () => {
    const { client, service } = stack;
    const externalIds = Array.from({ length: JOURNEYS }, (_, index) => `duplicates-${index}`);
    const partner = new Partner(service, new Set(externalIds), USD_RAMPS);
    for (const externalId of externalIds) await partner.signUp(externalId);
    const batch = await startJourneys({
      connection: stack.connection,
      taskQueue: stack.taskQueue,
      prefix: 'duplicates',
      count: JOURNEYS,
      ramps: USD_RAMPS,
      timings: EVENTS_ONLY_TIMINGS,
    });

    // Each round is one run of the service's delivery scheduler (and the autopilot's steps).
    await driveUntilDepositsFinish({
      client,
      batch,
      partner,
      timeoutMs: 180_000,
      round: async () => void (await service.sandbox.clock.advance(60)),
    });

    // The service did deliver everything twice, under both names.
    const log = await allDeliveries(service.ramp);
    expect(
      log.filter(
        (delivery) =>
          delivery.status !== 'DELIVERED' || !delivery.attempts.some((attempt) => attempt.trigger === 'DUPLICATE'),
      ),
    ).toEqual([]);
    const names = new Set(log.map((delivery) => delivery.event));
    for (const [legacy, name] of Object.entries(LEGACY_EVENT_NAMES)) {
      if (!name.endsWith('_REJECTED'))
        expect([...names], 'delivered under both names').toEqual(expect.arrayContaining([name, legacy]));
    }
    // Every target heard each event once.
    const doubled: string[] = [];
    for (const externalId of externalIds)
      doubled.push(...(await keysSignalledTwice(journeyWorkflowId(externalId))).map((key) => `${externalId}: ${key}`));
    for (const paid of partner.deposits.values()) {
      for (const depositId of [paid.onramp, paid.offramp])
        if (depositId)
          doubled.push(
            ...(await keysSignalledTwice(depositWorkflowId(depositId))).map((key) => `${depositId}: ${key}`),
          );
    }
    expect(doubled).toEqual([]);
    expect(await findProblems({ client, ramp: service.ramp, batch, partner })).toEqual([]);
  });
});
