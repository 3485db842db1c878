/**
 * The longest waiter per stage (observability/stage-age-scan.ts) against the real dev server's
 * visibility (SQLite: no ORDER BY, like the cluster's PostgreSQL). The waiters are workflows started
 * with the real workflow types' names on a task queue no worker polls: they stay Running with the
 * RampStage and RampStageSince their start gave them, which is all the scan reads.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCANNED_STAGES, StageAgeScan } from '../../observability/stage-age-scan';
import { RampStage, RampStageSince } from '../../observability/search-attributes';
import { connectClient, uniqueTaskQueue } from '../support/temporal';
import { until } from '../support/until';

let client: Client;
let close: () => Promise<void>;
const started: string[] = [];
const NOW = Date.parse('2026-06-01T12:00:00.000Z');
const MINUTE = 60_000;

beforeAll(async () => {
  ({ client, close } = await connectClient());
});
afterAll(async () => {
  await Promise.all(
    started.map((workflowId) =>
      client.workflow
        .getHandle(workflowId)
        .terminate('test over')
        .catch(() => undefined),
    ),
  );
  await close?.();
});

/** A waiter: a `workflowType` run at `stage` since `minutesAgo` before NOW, never picked up. */
async function waiter(
  taskQueue: string,
  workflowType: string,
  stage: string,
  minutesAgo: number | undefined,
): Promise<string> {
  const workflowId = `stage-age/${randomUUID()}`;
  await client.workflow.start(workflowType, {
    taskQueue,
    workflowId,
    args: [],
    typedSearchAttributes: new TypedSearchAttributes([
      { key: RampStage, value: stage },
      ...(minutesAgo === undefined ? [] : [{ key: RampStageSince, value: new Date(NOW - minutesAgo * MINUTE) }]),
    ]),
  });
  started.push(workflowId);
  return workflowId;
}

async function indexed(taskQueue: string, count: number): Promise<void> {
  await until(
    `visibility to list ${count} waiters`,
    async () =>
      (await client.workflow.count(`TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'`)).count === count
        ? true
        : undefined,
    30_000,
  );
}

function scanOf(taskQueue: string, options: { pageSize?: number; callsPerStage?: number } = {}) {
  const registry = new Registry();
  const failures: string[] = [];
  const scan = new StageAgeScan({
    client,
    taskQueue,
    registry,
    now: () => NOW,
    onError: (failure) => failures.push(failure.message),
    ...options,
  });
  const gauge = async (workflowType: string, stage: string): Promise<number | undefined> => {
    const line = (await registry.metrics())
      .split('\n')
      .find((one) =>
        one.startsWith(`rampflow_stage_oldest_waiter_seconds{workflow_type="${workflowType}",stage="${stage}"}`),
      );
    return line === undefined ? undefined : Number(line.split(' ').at(-1));
  };
  return { scan, gauge, failures };
}

const STAGES_SCANNED = SCANNED_STAGES.reduce((sum, kind) => sum + kind.stages.length, 0);

describe('the longest waiter per stage, from visibility', () => {
  it("serves each stage's oldest waiter on its task queue, 0 for an empty stage, one call a stage", async () => {
    const taskQueue = uniqueTaskQueue('stage-age');
    const other = uniqueTaskQueue('stage-age-other');
    await waiter(taskQueue, 'customerJourney', 'AWAITING_ACCOUNTS', 30);
    await waiter(taskQueue, 'customerJourney', 'AWAITING_ACCOUNTS', 90);
    await waiter(taskQueue, 'customerJourney', 'AWAITING_ACCOUNTS', 5);
    // Without RampStageSince (a run from before the attribute): not seen.
    await waiter(taskQueue, 'customerJourney', 'AWAITING_ACCOUNTS', undefined);
    await waiter(taskQueue, 'payout', 'AWAITING_SETTLEMENT', 600);
    // Another deployment's waiter, older still: not ours.
    await waiter(other, 'customerJourney', 'AWAITING_ACCOUNTS', 10_000);
    await indexed(taskQueue, 5);
    await indexed(other, 1);

    const { scan, gauge, failures } = scanOf(taskQueue);
    await scan.scanOnce();
    expect(failures).toEqual([]);
    expect(scan.calls).toBe(STAGES_SCANNED);
    expect(await gauge('customerJourney', 'AWAITING_ACCOUNTS')).toBe(90 * 60);
    expect(await gauge('payout', 'AWAITING_SETTLEMENT')).toBe(600 * 60);
    expect(await gauge('depositLifecycle', 'CONFIRMED')).toBe(0);
    expect(scan.oldestAt('customerJourney', 'AWAITING_ACCOUNTS')).toEqual({ since: NOW - 90 * MINUTE, exact: true });

    // The steady state: the remembered oldest is still there, one call a stage.
    await scan.scanOnce();
    expect(scan.calls).toBe(2 * STAGES_SCANNED);
    expect(await gauge('customerJourney', 'AWAITING_ACCOUNTS')).toBe(90 * 60);
  }, 60_000);

  it('finds the oldest among more waiters than a page by narrowing, and the next oldest once it leaves', async () => {
    const taskQueue = uniqueTaskQueue('stage-age-narrow');
    const minutes = [3, 50, 7, 41, 12, 44, 9, 30, 2];
    const ids = [];
    for (const minutesAgo of minutes)
      ids.push(await waiter(taskQueue, 'depositLifecycle', 'TRADE_CREATED', minutesAgo));
    await indexed(taskQueue, minutes.length);

    // Pages of 2 and calls enough: one scan narrows down to the oldest.
    const unbounded = scanOf(taskQueue, { pageSize: 2, callsPerStage: 20 });
    await unbounded.scan.scanOnce();
    expect(unbounded.scan.oldestAt('depositLifecycle', 'TRADE_CREATED')).toEqual({
      since: NOW - 50 * MINUTE,
      exact: true,
    });

    // At most 3 calls a stage a scan: it may take a few scans to be sure.
    const { scan, gauge } = scanOf(taskQueue, { pageSize: 2, callsPerStage: 3 });
    const seen: number[] = [];
    for (let scans = 0; scans < 10 && !scan.oldestAt('depositLifecycle', 'TRADE_CREATED')?.exact; scans += 1) {
      const before = scan.calls;
      await scan.scanOnce();
      expect(scan.calls - before).toBeLessThanOrEqual(3 * STAGES_SCANNED);
      seen.push((await gauge('depositLifecycle', 'TRADE_CREATED'))!);
    }
    expect(scan.oldestAt('depositLifecycle', 'TRADE_CREATED')).toEqual({ since: NOW - 50 * MINUTE, exact: true });
    // Never more than the true age while it searches, and never less from one scan to the next.
    for (const [index, seconds] of seen.entries()) {
      expect(seconds).toBeLessThanOrEqual(50 * 60);
      if (index > 0) expect(seconds).toBeGreaterThanOrEqual(seen[index - 1]!);
    }

    // The oldest moves on: the next scans find the next oldest (44 minutes).
    await client.workflow.getHandle(ids[minutes.indexOf(50)]!).terminate('moved on');
    await indexed(taskQueue, minutes.length - 1);
    const found = () => scan.oldestAt('depositLifecycle', 'TRADE_CREATED');
    for (let scans = 0; scans < 10 && !(found()?.exact && found()?.since === NOW - 44 * MINUTE); scans += 1)
      await scan.scanOnce();
    expect(scan.oldestAt('depositLifecycle', 'TRADE_CREATED')).toEqual({ since: NOW - 44 * MINUTE, exact: true });
    expect(await gauge('depositLifecycle', 'TRADE_CREATED')).toBe(44 * 60);
  }, 60_000);
});
