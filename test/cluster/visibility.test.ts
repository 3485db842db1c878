/**
 * Visibility on the cluster profile as production runs it (PostgreSQL's SQL visibility, the
 * dynamic config of deploy/temporal-server/dynamicconfig.yaml), on the shared cluster of the global
 * setup:
 * - the namespace's visibility rate is the one set there (50 a second, bursts of 100), not the
 *   server's default 10: a burst of calls without the SDK's retries is cut at about the burst;
 * - rampflow's clients ride the limit out: the same burst through a default client (the SDK retries
 *   RESOURCE_EXHAUSTED with backoff) all answers;
 * - `rampflow status` reads a journey waiting for KYC and one parked, with their time in stage;
 * - the stage-age scan finds the longest waiter per stage on PostgreSQL (no ORDER BY there either).
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusSnapshot } from '../../client/status';
import { StageAgeScan } from '../../observability/stage-age-scan';
import { RampStage, RampStageSince } from '../../observability/search-attributes';
import { startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { runRampflow } from '../support/run';
import { temporalAddress, uniqueTaskQueue } from '../support/temporal';
import { until } from '../support/until';

const BURST = 200;
/** gRPC's status code for a rate limit (the frontend's answer over `frontend.namespaceRPS.visibility`). */
const RESOURCE_EXHAUSTED = 8;

/** The gRPC status a call failed with: the SDK wraps it in a ServiceError whose cause carries it. */
const grpcCode = (error: unknown): number | undefined => {
  const { code, cause } = error as { code?: number; cause?: { code?: number } };
  return code ?? cause?.code;
};

let h: JourneyHarness;
let parkedId = '';
let waitingId = '';

beforeAll(async () => {
  h = await startJourneyHarness();
  const waiting = await h.startJourney({});
  const parked = await h.startJourney({ timings: { kycDeadlineSeconds: 2 } });
  waitingId = waiting.workflowId;
  parkedId = parked.workflowId;
  await h.waitForJourney(waiting, (state) => state.stage === 'AWAITING_KYC');
  await h.waitForJourney(parked, (state) => state.stage === 'NEEDS_ATTENTION');
});
afterAll(async () => {
  await h?.close();
});

/** `BURST` counts at once; how many answered and how many the server refused as RESOURCE_EXHAUSTED. */
async function burst(client: Client): Promise<{ answered: number; exhausted: number; other: string[] }> {
  const outcomes = await Promise.all(
    Array.from({ length: BURST }, () =>
      client.workflow.count(`TaskQueue = '${h.taskQueue}'`).then(
        () => 'answered',
        (error: unknown) => (grpcCode(error) === RESOURCE_EXHAUSTED ? 'exhausted' : String(error)),
      ),
    ),
  );
  return {
    answered: outcomes.filter((outcome) => outcome === 'answered').length,
    exhausted: outcomes.filter((outcome) => outcome === 'exhausted').length,
    other: outcomes.filter((outcome) => outcome !== 'answered' && outcome !== 'exhausted'),
  };
}

describe('visibility on the cluster profile', () => {
  it('allows the namespace the configured rate: a burst without retries is cut near 100, far above the default 10', async () => {
    // No interceptors: none of the SDK's retries, so the server's refusals show.
    const connection = await Connection.connect({ address: temporalAddress(), interceptors: [] });
    try {
      const { answered, exhausted, other } = await burst(new Client({ connection }));
      expect(other).toEqual([]);
      expect(exhausted).toBeGreaterThan(0);
      // 50 a second with a burst ratio of 2: about 100 at once (the default would let about 10 through).
      expect(answered).toBeGreaterThanOrEqual(80);
      expect(answered).toBeLessThanOrEqual(140);
    } finally {
      await connection.close();
    }
  });

  it('a default client rides the limit out: every call of the burst answers (the SDK retries RESOURCE_EXHAUSTED with backoff)', async () => {
    const connection = await Connection.connect({ address: temporalAddress() });
    try {
      expect(await burst(new Client({ connection }))).toEqual({ answered: BURST, exhausted: 0, other: [] });
    } finally {
      await connection.close();
    }
  });

  it("`rampflow status --json` reads the journeys by stage, the longest waiter's time in stage, in 8 visibility calls", async () => {
    const status = await until(
      'visibility to index both journeys',
      async () => {
        const result = await runRampflow(['status', '--json'], {
          env: { ...process.env, TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_TASK_QUEUE: h.taskQueue },
        });
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        const read = JSON.parse(result.stdout) as StatusSnapshot;
        const journeys = read.kinds.find((kind) => kind.kind === 'journeys');
        const count = (stage: string) => journeys?.stages.find((one) => one.stage === stage)?.count;
        return count('AWAITING_KYC') === 1 && count('NEEDS_ATTENTION') === 1 ? read : undefined;
      },
      60_000,
      1_000,
    );
    expect(status).toMatchObject({ taskQueue: h.taskQueue, visibilityCalls: 8, errors: [] });
    const journeys = status.kinds.find((kind) => kind.kind === 'journeys')!;
    expect(journeys).toMatchObject({ running: 2, countedBy: 'listed', otherStage: 0 });
    const parked = journeys.stages.find((stage) => stage.stage === 'NEEDS_ATTENTION')!.oldestInStage!;
    expect(parked.workflowId).toBe(parkedId);
    expect(journeys.stages.find((stage) => stage.stage === 'AWAITING_KYC')!.oldestInStage!.workflowId).toBe(waitingId);
    // Time in the stage: it parked after its 2-second KYC deadline, so after its run started.
    const { startTime } = await h.client.workflow.getHandle(parkedId).describe();
    expect(Date.parse(parked.since) - startTime.getTime()).toBeGreaterThanOrEqual(2_000);
    expect(status.parked).toMatchObject({ total: 1, read: 1 });
  });

  it('the stage-age scan finds the longest waiter at a stage on PostgreSQL, in one call a stage once found', async () => {
    const taskQueue = uniqueTaskQueue('cluster-stage-age');
    const now = Date.parse('2026-06-01T12:00:00.000Z');
    const ids: string[] = [];
    for (const minutesAgo of [5, 125, 40]) {
      const workflowId = `stage-age/${randomUUID()}`;
      // No worker polls this queue: the run stays open with the attributes of its start.
      await h.client.workflow.start('payout', {
        taskQueue,
        workflowId,
        args: [],
        typedSearchAttributes: new TypedSearchAttributes([
          { key: RampStage, value: 'AWAITING_SETTLEMENT' },
          { key: RampStageSince, value: new Date(now - minutesAgo * 60_000) },
        ]),
      });
      ids.push(workflowId);
    }
    try {
      await until(
        'visibility to index the waiters',
        async () => ((await h.client.workflow.count(`TaskQueue = '${taskQueue}'`)).count === 3 ? true : undefined),
        60_000,
      );
      const scan = new StageAgeScan({
        client: h.client,
        taskQueue,
        registry: new Registry(),
        now: () => now,
        pageSize: 2,
        callsPerStage: 10,
      });
      await scan.scanOnce();
      expect(scan.oldestAt('payout', 'AWAITING_SETTLEMENT')).toEqual({ since: now - 125 * 60_000, exact: true });
      const before = scan.calls;
      await scan.scanOnce();
      expect(scan.oldestAt('payout', 'AWAITING_SETTLEMENT')).toEqual({ since: now - 125 * 60_000, exact: true });
      // The remembered waiter is still there: one call for this stage, one for each empty one.
      expect(scan.calls - before).toBe(15);
    } finally {
      await Promise.all(
        ids.map((id) =>
          h.client.workflow
            .getHandle(id)
            .terminate('test over')
            .catch(() => undefined),
        ),
      );
    }
  });
});
