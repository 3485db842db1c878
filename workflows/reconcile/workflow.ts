/**
 * Reconciliation, run by a Temporal Schedule (webhooks/reconcile-schedule.ts): the service's webhooks
 * are retried for about eight days and then dropped, so this pages the service's customer, deposit
 * and trade lists, compares them with the running journeys and deposits (through Temporal
 * visibility, in the activities), and signals the ones whose state lags the service; a deposit that
 * has no workflow at all (no event announced it) gets one, by signal-with-start. Targets apply each
 * key at most once and only move forward, so a repair that races a late event is harmless.
 *
 * The activities only read; this workflow sends the signals, so every repair is in its history.
 *
 * Each run returns where it read each list up to (the watermark); the schedule hands the last run's
 * result to the next (`workflowInfo().lastResult`), which then reads only what is newer, when the
 * service lists newest first (ReconcileLimits.listOrder). A run started by hand has no last result
 * and reads every list in full, up to its page limit.
 */
import { getExternalWorkflowHandle, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { ACTIVITY_RETRY, PRIORITY, serviceActivities } from '../common/calls';
import type { DepositDeliveryActivities } from '../../activities/deposit-delivery';
import type { ReconcileActivities } from '../../activities/reconcile-activities';
import { customerEventSignal, depositIdOf } from '../common/messages';
import { reportReconcileRun } from '../common/showing';
import {
  DEFAULT_RECONCILE_LIMITS,
  type LagReport,
  type ListWatermark,
  type ReconcileLimits,
  type ReconcileResult,
  type ReconcileWatermark,
  type Repair,
} from './types';

// Reconciliation is background work: on the service task queue behind everything else.
const act = serviceActivities<ReconcileActivities>(
  {
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: '2 minutes',
    // A failed run is not fatal: the next scheduled run starts afresh.
    retry: { initialInterval: '5 seconds', maximumAttempts: 3 },
  },
  () => PRIORITY.LOW,
);
const deliveries = proxyActivities<DepositDeliveryActivities>({
  startToCloseTimeout: '1 minute',
  retry: ACTIVITY_RETRY,
});

export async function reconcileWithService(limits: Partial<ReconcileLimits> = {}): Promise<ReconcileResult> {
  const run = new ReconcileRun(limits);
  // Customers first: a journey that learns of its KYC decision moves on before its deposits are checked.
  await run.repairList('customers', (limits, previous) => act.findCustomerLag(limits, previous));
  await run.repairList('deposits', (limits, previous) => act.findDepositLag(limits, previous));
  // A run that read the deposit list only down to its watermark reads the rejections it passed over.
  if (run.since.deposits !== undefined) await run.repairRejectedDeposits();
  await run.repairList('trades', (limits, previous) => act.findTradeLag(limits, previous));

  reportReconcileRun(run.result);
  return run.result;
}

/** One reconciliation run: what it has found and repaired so far, and what is left of its repair budget. */
class ReconcileRun {
  readonly result: ReconcileResult = {
    examined: { customers: 0, deposits: 0, trades: 0 },
    pages: { customers: 0, deposits: 0, trades: 0 },
    repaired: 0,
    missed: 0,
    truncated: false,
    watermark: {},
  };
  private readonly limits: ReconcileLimits;
  /** Where the schedule's previous run read each list up to (newest-first only; else every list is read in full). */
  readonly since: ReconcileWatermark;
  private budget: number;

  constructor(limits: Partial<ReconcileLimits>) {
    this.limits = { ...DEFAULT_RECONCILE_LIMITS, ...limits };
    this.since = this.limits.listOrder === 'newest-first' ? lastWatermark() : {};
    this.budget = this.limits.maxRepairs;
  }

  /** Runs one pass over a list with what is left of the repair budget; with none left, the next run does it. */
  async repairList(
    list: 'customers' | 'deposits' | 'trades',
    find: (limits: ReconcileLimits, since?: ListWatermark) => Promise<LagReport>,
  ): Promise<void> {
    const { result } = this;
    const previous = this.since[list];
    if (this.budget <= 0) {
      result.truncated = true;
      if (previous) result.watermark[list] = previous;
      result.examined[list] = 0;
      return;
    }
    const report = await find({ ...this.limits, maxRepairs: this.budget }, previous);
    await this.repair(report);
    if (report.watermark) result.watermark[list] = report.watermark;
    result.pages![list] = report.pages;
    result.examined[list] = report.examined;
  }

  /**
   * The REJECTED deposits changed since the last run's newest one (activities/reconcile-activities.ts,
   * findRejectedDepositLag): a deposit rejected long after it arrived sits below the deposit list's
   * watermark. A pass cut short keeps the bound where it was, so the next run reads what this one did not.
   */
  async repairRejectedDeposits(): Promise<void> {
    const { result } = this;
    const previous = this.since.rejectedDepositsSince;
    let next = previous;
    if (this.budget <= 0) {
      result.truncated = true;
    } else {
      const report = await act.findRejectedDepositLag({ ...this.limits, maxRepairs: this.budget }, previous);
      await this.repair(report);
      if (!report.truncated) next = report.newestChange;
      result.examined.rejectedDeposits = report.examined;
      result.pages!.rejectedDeposits = report.pages;
    }
    if (next !== undefined) result.watermark.rejectedDepositsSince = next;
  }

  /** Sends each repair a pass found, in order, and spends the budget on them. */
  private async repair(report: LagReport): Promise<void> {
    this.result.truncated ||= report.truncated;
    for (const repair of report.repairs) {
      if (await send(repair)) this.result.repaired += 1;
      else this.result.missed += 1;
    }
    this.budget -= report.repairs.length;
  }
}

/** The watermark of the schedule's previous run; none for the first run, a run by hand, or a result of older code. */
function lastWatermark(): ReconcileWatermark {
  const last = workflowInfo().lastResult as Partial<ReconcileResult> | undefined;
  return last?.watermark ?? {};
}

/** Signals the lagging workflow (a deposit by signal-with-start); false when the target had finished. */
async function send(repair: Repair): Promise<boolean> {
  const { key, event } = repair;
  switch (repair.signal) {
    case 'customer':
      try {
        await getExternalWorkflowHandle(repair.target).signal(customerEventSignal, {
          key,
          event,
          record: repair.record,
        });
        return true;
      } catch {
        // The target finished between the check and the signal: nothing left to repair.
        return false;
      }
    case 'deposit':
      return (
        (await deliveries.deliverToDeposit({
          depositId: repair.record.id,
          signal: 'deposit',
          event: { key, event, record: repair.record },
        })) === 'DELIVERED'
      );
    case 'trade':
      return (
        (await deliveries.deliverToDeposit({
          depositId: depositIdOf(repair.target),
          signal: 'trade',
          event: { key, event, record: repair.record },
        })) === 'DELIVERED'
      );
    case 'payment':
      return (
        (await deliveries.deliverToDeposit({
          depositId: depositIdOf(repair.target),
          signal: 'payment',
          event: { key, event, record: repair.record },
        })) === 'DELIVERED'
      );
  }
}
