/**
 * Fault: a storm of deposit reports (issue 25, item 3). 1,000 reports a second offered to one journey
 * for 30 s, then the same 1,000 a second spread over ten journeys at once, each report offered as a
 * deposit workflow offers it (client/journey-report-sender.ts, offered again while refused, as the
 * deposit's report activity retries) and each deposit's reports in order (RECEIVED, then COMPLETED
 * once RECEIVED was taken). The worker is the operators' child process, so a crash in Node's async
 * hooks (temporalio/sdk-typescript#939) shows as its exit. Expected: the worker lives, every report is
 * taken, the journeys continue as new while reports arrive, and each board's counts and totals are
 * exactly what was paid, however slowly they drain.
 */
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JourneyReportSender } from '../../client/journey-report-sender';
import { addDecimal } from '../../workflows/journey/board';
import {
  depositReportKey,
  type DepositStage,
  type DepositSummary,
  type JourneyState,
  journeyStateQuery,
  journeyWorkflowId,
} from '../../workflows/common/messages';
import { ONE_SECOND_AUTOPILOT } from './support/autopilot';
import { EVENTS_ONLY_TIMINGS } from './support/events-only';
import { type FaultStack, startFaultStack } from './support/fault-stack';
import { activeJourneys, type JourneyBatch, startJourneys } from './support/journeys';
import { Partner, USD_RAMPS } from './support/partner';
import { pause, until } from './support/until';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process';

const REPORTS_PER_SECOND = 1_000;
const STORM_SECONDS = 30;
/** Each synthetic deposit reports twice (opened, then completed), as a deposit on the happy path does. */
const REPORTS_PER_DEPOSIT = 2;
/** The sender's answer to a refusal, as the deposit's report activity retries (workflows/deposit/run.ts, its JourneyReporter), but quicker. */
const OFFER_AGAIN_AFTER_MS = 500;
const DRAIN_TIMEOUT_MS = 300_000;

let stack: FaultStack;
let worker: WorkerProcess;
let batch: JourneyBatch;

beforeAll(async () => {
  stack = await startFaultStack({ autopilot: ONE_SECOND_AUTOPILOT, deliveryTickSeconds: 1 });
  worker = startWorkerProcess({
    temporalAddress: stack.temporal.address,
    taskQueue: stack.taskQueue,
    rampBaseUrl: stack.service.sandbox.url,
  });
  await worker.started;
  // Eleven journeys to ACTIVE on events alone: one for the storm on one journey, ten for the storm on ten.
  const externalIds = Array.from({ length: 11 }, (_, index) => `storm-${index}`);
  const partner = new Partner(stack.service, new Set(externalIds), USD_RAMPS);
  for (const externalId of externalIds) await partner.signUp(externalId);
  batch = await startJourneys({
    connection: stack.connection,
    taskQueue: stack.taskQueue,
    prefix: 'storm',
    count: externalIds.length,
    ramps: USD_RAMPS,
    timings: EVENTS_ONLY_TIMINGS,
  });
  await until(
    'the journeys to be ACTIVE',
    async () => ((await activeJourneys(stack.client)) === externalIds.length ? true : undefined),
    { timeoutMs: 110_000 },
  );
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await stack?.close();
});

/** What was paid to one journey: the deposits whose reports were offered and the exact total. */
interface Paid {
  deposits: number;
  total: string;
  refusals: number;
  gone: number;
}

/** An amount of its own for every deposit, so a report lost or doubled moves the total. */
const amountOf = (n: number): string => `${1 + (n % 997)}.${String(n % 100).padStart(2, '0')}`;

/**
 * Offers REPORTS_PER_SECOND reports a second for STORM_SECONDS, round-robin over the journeys: every
 * tenth of a second a new wave of deposits opens, and each deposit reports COMPLETED as soon as its
 * RECEIVED was taken. Resolves when every report was taken (or answered journey-gone, which fails the case).
 */
async function storm(client: Client, journeyIds: string[]): Promise<Map<string, Paid>> {
  const sender = new JourneyReportSender(client);
  const paid = new Map(journeyIds.map((id) => [id, { deposits: 0, total: '0', refusals: 0, gone: 0 }]));
  const depositsPerWave = REPORTS_PER_SECOND / REPORTS_PER_DEPOSIT / 10;
  const reporting: Promise<void>[] = [];
  const offerUntilTaken = async (
    journeyId: string,
    depositId: string,
    n: number,
    summary: DepositSummary,
    previousStage?: DepositStage,
  ) => {
    const tally = paid.get(journeyId)!;
    for (;;) {
      const outcome = await sender.offer(journeyId, {
        key: depositReportKey(depositId, 'storm', n),
        progress: { summary, ...(previousStage ? { previousStage } : {}) },
      });
      if (outcome === 'taken') return;
      if (outcome === 'journey-gone') {
        tally.gone += 1;
        return;
      }
      tally.refusals += 1;
      await pause(OFFER_AGAIN_AFTER_MS);
    }
  };
  let n = 0;
  const started = Date.now();
  for (let wave = 0; wave < STORM_SECONDS * 10; wave += 1) {
    for (let i = 0; i < depositsPerWave; i += 1, n += 1) {
      const journeyId = journeyIds[n % journeyIds.length]!;
      const depositId = `storm-deposit-${n}`;
      const amount = amountOf(n);
      const tally = paid.get(journeyId)!;
      tally.deposits += 1;
      tally.total = addDecimal(tally.total, amount);
      const base = { depositId, kind: 'ONRAMP' as const, amount, currency: 'AUD' };
      reporting.push(
        (async () => {
          await offerUntilTaken(journeyId, depositId, 1, { ...base, stage: 'RECEIVED' });
          await offerUntilTaken(
            journeyId,
            depositId,
            2,
            { ...base, stage: 'COMPLETED', tradeId: `trade-${n}` },
            'RECEIVED',
          );
        })(),
      );
    }
    // Paced against the clock, not the waves: a slow wave is caught up, the rate stays the one stated.
    const due = started + (wave + 1) * 100;
    if (due > Date.now()) await pause(due - Date.now());
  }
  await Promise.all(reporting);
  return paid;
}

/** The board once it counts every deposit paid (the journey takes its last reports after the senders heard so). */
async function boardOnceDrained(journeyId: string, paid: Paid): Promise<JourneyState> {
  const handle = stack.client.workflow.getHandle(journeyId);
  let last: JourneyState | undefined;
  return until(
    `${journeyId} to count its ${paid.deposits} deposits`,
    async () => {
      if (worker.exited()) throw new Error(`the worker process died:\n${worker.output()}`);
      last = await handle.query(journeyStateQuery).catch(() => last);
      return last && (last.deposits.byStage.COMPLETED ?? 0) >= paid.deposits ? last : undefined;
    },
    { timeoutMs: DRAIN_TIMEOUT_MS, intervalMs: 1_000, describe: () => JSON.stringify(last?.deposits.byStage) },
  );
}

async function runsOf(journeyId: string): Promise<number> {
  const { count } = await stack.client.workflow.count(`WorkflowId = '${journeyId}'`);
  return count;
}

async function expectExactBoards(paid: Map<string, Paid>): Promise<void> {
  for (const [journeyId, tally] of paid) {
    expect(tally.gone, `${journeyId}: reports answered journey-gone`).toBe(0);
    const board = (await boardOnceDrained(journeyId, tally)).deposits;
    expect(board.byStage, journeyId).toEqual({ COMPLETED: tally.deposits });
    expect(board.completedTotals, journeyId).toEqual({ AUD: tally.total });
    expect(board.open, journeyId).toEqual([]);
    expect(board.openNotShown, journeyId).toBe(0);
  }
  expect(worker.exited(), worker.output()).toBe(false);
}

describe('a storm of deposit reports', () => {
  it(`takes ${REPORTS_PER_SECOND} reports a second to one journey for ${STORM_SECONDS} s: no crash, none lost or doubled`, async () => {
    const journeyId = journeyWorkflowId(batch.externalIds[0]!);
    const paid = await storm(stack.client, [journeyId]);
    expect(paid.get(journeyId)!.deposits * REPORTS_PER_DEPOSIT).toBe(REPORTS_PER_SECOND * STORM_SECONDS);
    await expectExactBoards(paid);
    // The journey continued as new while the reports arrived, and its runs carried every report they took.
    expect(await runsOf(journeyId)).toBeGreaterThan(1);
  });

  it(`takes ${REPORTS_PER_SECOND} reports a second spread over ten journeys at once`, async () => {
    const journeyIds = batch.externalIds.slice(1).map((externalId) => journeyWorkflowId(externalId));
    const paid = await storm(stack.client, journeyIds);
    await expectExactBoards(paid);
  });
});
