/**
 * A rejection whose webhook was lost, of a deposit older than the watermark: scheduled runs read the
 * deposit list, newest first, only down to what the previous run saw at its head, so the deposit is
 * never among what they read again. They also re-read the rejected deposits changed since the last
 * run (the list filtered by status), so the rejection still reaches the deposit's workflow.
 *
 * No webhook is registered (every event is lost) and the deposits poll only once an hour: only
 * reconciliation can move them. The schedule runs every two seconds (the dev server hands a run's
 * result, and so its watermark, only to the next scheduled run).
 */
import { randomUUID } from 'node:crypto';
import type { ScheduleHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureReconcileSchedule } from '../../webhooks/reconcile-schedule';
import { depositWorkflowId } from '../../workflows/common/messages';
import type { ReconcileResult } from '../../workflows/reconcile/types';
import {
  startActiveJourney,
  startJourneyHarness,
  TEST_AUD_SOURCE,
  type JourneyHarness,
} from '../support/journey-harness';
import { eventually } from './support/receiver';

let h: JourneyHarness;
let schedule: ScheduleHandle | undefined;

beforeAll(async () => {
  h = await startJourneyHarness(
    { listOrder: 'newest-first' },
    { depositTimings: { pollIntervalSeconds: 3600, stepDeadlineSeconds: 86_400 } },
  );
});
afterAll(async () => {
  await schedule?.delete();
  await h?.close();
});

/** The result of the schedule's `n`th run (from 1), once it has completed. */
async function nthRun(n: number): Promise<ReconcileResult> {
  const { info } = await eventually(
    () => schedule!.describe(),
    (description) => description.info.recentActions.length >= n,
    `scheduled run ${n}`,
    120_000,
  );
  const { workflowId, firstExecutionRunId } = info.recentActions[n - 1]!.action.workflow;
  return h.client.workflow.getHandle(workflowId, firstExecutionRunId).result();
}

describe('scheduled reconciliation, the service listing newest first', () => {
  it('brings a lost rejection to a deposit the watermark has passed', async () => {
    const { virtualAccountId } = await startActiveJourney(h);
    const older = await h.control.simulateFiatDeposit({
      virtualAccountId,
      amount: '30.00',
      currency: 'AUD',
      sender: TEST_AUD_SOURCE,
    });
    const newer = await h.control.simulateFiatDeposit({
      virtualAccountId,
      amount: '31.00',
      currency: 'AUD',
      sender: TEST_AUD_SOURCE,
    });

    const scheduleId = `reconcile-rejections-${randomUUID()}`;
    await ensureReconcileSchedule(h.client, {
      scheduleId,
      taskQueue: h.taskQueue,
      intervalSeconds: 2,
      limits: { listOrder: 'newest-first' },
    });
    schedule = h.client.schedule.getHandle(scheduleId);
    // The first run reads every list and starts both deposits' workflows.
    expect((await nthRun(1)).repaired).toBeGreaterThanOrEqual(2);
    await h.waitForDeposit(older.id, (s) => s.stage === 'RECEIVED');
    await h.waitForDeposit(newer.id, (s) => s.stage === 'RECEIVED');
    // A later run reads the deposit list no deeper than its head: the older deposit is behind the watermark.
    let run = 2;
    while ((await nthRun(run)).examined.deposits > 0 && run < 8) run += 1;
    expect((await nthRun(run)).examined.deposits).toBe(0);

    // The service rejects the older deposit; its DEPOSIT_REJECTED is lost.
    await h.control.rejectDeposit(older.id);
    const handle = h.client.workflow.getHandle(depositWorkflowId(older.id));
    const lastRun = run + 6;
    while (run < lastRun && (await handle.describe()).status.name === 'RUNNING') await nthRun(++run);
    expect((await handle.describe()).status.name).toBe('COMPLETED');
    expect(await handle.result()).toMatchObject({ stage: 'REJECTED' });
    // Later runs re-read rejections only from the newest one they have seen, and find nothing to repair.
    const later = await nthRun(run + 2);
    expect(later.watermark.rejectedDepositsSince).toBeDefined();
    expect(later.repaired).toBe(0);
  }, 240_000);
});
