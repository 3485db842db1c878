/**
 * The reconciliation Schedule (`rampflow-reconcile`), created or brought up to date idempotently each
 * time `rampflow webhooks serve` starts (unless `--no-reconcile-schedule`). Several
 * receivers starting at once all converge on the same schedule: a create that finds it already there
 * updates it instead. Runs never overlap (a run still going when the next is due makes that one skip).
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { reconcileWithService } from '../workflows/reconcile/workflow';
import type { ReconcileLimits } from '../workflows/reconcile/types';

export const RECONCILE_SCHEDULE_ID = 'rampflow-reconcile';

/** Every 30 minutes by default: well inside a day, so nothing waits for the workflows' own slower polls. */
export const DEFAULT_RECONCILE_INTERVAL_SECONDS = 30 * 60;

export interface ReconcileScheduleOptions {
  taskQueue: string;
  intervalSeconds?: number;
  limits?: Partial<ReconcileLimits>;
  scheduleId?: string;
}

export async function ensureReconcileSchedule(
  client: Client,
  options: ReconcileScheduleOptions,
): Promise<'created' | 'updated'> {
  const scheduleId = options.scheduleId ?? RECONCILE_SCHEDULE_ID;
  const spec = { intervals: [{ every: `${options.intervalSeconds ?? DEFAULT_RECONCILE_INTERVAL_SECONDS}s` }] };
  const action = {
    type: 'startWorkflow' as const,
    workflowType: 'reconcileWithService',
    // Temporal appends each run's time to this ID.
    workflowId: scheduleId,
    taskQueue: options.taskQueue,
    args: [options.limits ?? {}] as Parameters<typeof reconcileWithService>,
  };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '10 minutes' };
  try {
    await client.schedule.create({ scheduleId, spec, action, policies });
    return 'created';
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  await client.schedule
    .getHandle(scheduleId)
    .update((previous) => ({ ...previous, spec, action, policies: { ...previous.policies, ...policies } }));
  return 'updated';
}
