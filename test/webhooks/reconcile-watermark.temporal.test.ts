/**
 * Reconciliation reads only what is new (issue 17): a scheduled run hands where it read each list up
 * to (its result, the next run's `workflowInfo().lastResult`) to the next, which reads each list only
 * down to it when the service lists newest first, and customers at least 100 deep.
 *
 * The schedule runs every two seconds: the dev server hands a run's result to the next scheduled run,
 * not to one triggered by hand (checked while writing this test), so the test waits for real runs.
 */
import { randomUUID } from 'node:crypto';
import type { ScheduleHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureReconcileSchedule } from '../../webhooks/reconcile-schedule';
import { depositWorkflowId } from '../../workflows/common/messages';
import type { ReconcileResult } from '../../workflows/reconcile/types';
import { startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { eventually } from './support/receiver';

let h: JourneyHarness;
/** The same, with the sandbox listing oldest first, as it does by default. */
let oldestFirst: JourneyHarness;
let schedule: ScheduleHandle | undefined;
/** The harness whose worker runs the schedule's runs. */
let scheduled: JourneyHarness;

beforeAll(async () => {
  h = await startJourneyHarness({ listOrder: 'newest-first' });
  oldestFirst = await startJourneyHarness({ listOrder: 'oldest-first' });
});
afterAll(async () => {
  await schedule?.delete();
  await h?.close();
  await oldestFirst?.close();
});

async function startSchedule(harness: JourneyHarness): Promise<void> {
  const scheduleId = `reconcile-watermark-${randomUUID()}`;
  await ensureReconcileSchedule(harness.client, {
    scheduleId,
    taskQueue: harness.taskQueue,
    intervalSeconds: 2,
    limits: { listOrder: 'newest-first' },
  });
  await schedule?.delete();
  schedule = harness.client.schedule.getHandle(scheduleId);
  scheduled = harness;
}

/** The result of the schedule's `n`th run (from 1), once it has completed. */
async function nthRun(n: number): Promise<ReconcileResult> {
  const { info } = await eventually(
    () => schedule!.describe(),
    (description) => description.info.recentActions.length >= n,
    `scheduled run ${n}`,
    120_000,
  );
  const { workflowId, firstExecutionRunId } = info.recentActions[n - 1]!.action.workflow;
  return scheduled.client.workflow.getHandle(workflowId, firstExecutionRunId).result();
}

describe('scheduled reconciliation, the service listing newest first', () => {
  it('reads every list once, then one page of each, and still starts a new deposit no event announced', async () => {
    await h.control.seed({ customers: 250, externalIdPrefix: `idle-${randomUUID()}-` });
    await startSchedule(h);

    const first = await nthRun(1);
    expect(first.examined.customers).toBe(250);
    expect(first.pages).toEqual({ customers: 3, deposits: 1, trades: 1 });
    expect(first.watermark.customers?.headIds).toHaveLength(5);

    // Nothing new: one page of each list, and of the customers the newest hundred (recent KYC decisions),
    // and one of the rejected deposits (none: their list is read for rejections below the watermark).
    const second = await nthRun(2);
    expect(second.pages).toEqual({ customers: 1, deposits: 1, trades: 1, rejectedDeposits: 1 });
    expect(second.examined).toEqual({ customers: 100, deposits: 0, trades: 0, rejectedDeposits: 0 });
    expect(second.repaired).toBe(0);

    // Money arrives that no event announces: a later run finds it at the head and starts its workflow.
    await h.control.seed({ deposits: 1 });
    const [deposit] = (await h.ramp.deposits.list({ pageNum: 1, pageSize: 1 })).list;
    let run = 3;
    let found = await nthRun(run);
    while (found.examined.deposits === 0 && run < 8) found = await nthRun(++run);
    expect(found.examined.deposits).toBe(1);
    expect(found.pages?.deposits).toBe(1);
    expect(found.repaired).toBe(1);
    expect((await h.client.workflow.getHandle(depositWorkflowId(deposit!.id)).describe()).type).toBe(
      'depositLifecycle',
    );
    // ...and the run after it reads past it no more.
    expect((await nthRun(run + 1)).examined.deposits).toBe(0);
  }, 240_000);
});

describe('scheduled reconciliation, the service listing oldest first after all', () => {
  it('notices a list that grew under the same head and reads all of it', async () => {
    await oldestFirst.control.seed({ customers: 250, externalIdPrefix: `old-${randomUUID()}-` });
    await startSchedule(oldestFirst);
    expect((await nthRun(1)).examined.customers).toBe(250);
    // New customers land at the end of an oldest-first list, where a watermark at its head never looks.
    await oldestFirst.control.seed({ customers: 10, externalIdPrefix: `new-${randomUUID()}-` });
    let run = 2;
    let result = await nthRun(run);
    while (result.examined.customers < 260 && run < 6) result = await nthRun(++run);
    expect(result.examined.customers).toBe(260);
    expect(result.pages?.customers).toBe(3);
  }, 240_000);
});
