/** Inputs, findings and results of the reconciliation workflow (workflows/reconcile/workflow.ts). */
import type { ListOrder } from '../../config/list-orders';
import type { EventName } from '../../ramp/events';
import type { CustomerRecord, DepositRecord, PaymentRecord, TradeRecord } from '../common/records';

export interface ReconcileLimits {
  /** Pages of 100 read from each of the service's customer, deposit and trade lists per run. */
  maxPages: number;
  /** Signals one run sends at most (the rest wait for the next run). */
  maxRepairs: number;
  /**
   * How the service orders its lists (the interface does not say; ramp/assumptions.ts assumes newest
   * first, the default here too, and config/env.ts lets a deployment say otherwise). `newest-first`:
   * a run reads each list from its head only until it meets what the previous run saw at the head (the
   * watermark); `unknown`: every run reads every list, up to `maxPages`, from both ends (page 1, the
   * last, page 2, the one before the last, ...), so the newest records are read whatever the order.
   */
  listOrder: ListOrder;
  /** The newest customers every run looks at whatever the watermark: KYC decisions on recent signups. */
  recentCustomers: number;
}

export const DEFAULT_RECONCILE_LIMITS: ReconcileLimits = {
  maxPages: 100,
  maxRepairs: 200,
  listOrder: 'newest-first',
  recentCustomers: 100,
};

/**
 * Where a run read a list up to: the ids at the list's head and its length then. Several ids, not one,
 * so a head record deleted since does not send the next run through the whole list.
 */
export interface ListWatermark {
  headIds: string[];
  total: number;
}

/** Carried from one scheduled run to the next as part of the run's result (`workflowInfo().lastResult`). */
export interface ReconcileWatermark {
  customers?: ListWatermark;
  deposits?: ListWatermark;
  trades?: ListWatermark;
  /**
   * The newest `timestamp` (ms since the epoch, the service's clock) among the REJECTED deposits the
   * run read: the next run re-reads the rejected deposits changed since (workflows/reconcile/workflow.ts).
   */
  rejectedDepositsSince?: number;
}

/**
 * One workflow found lagging the service, and the signal that brings it level. Keys start with
 * `RECONCILE/` so they can never collide with an event's `EVENT/payload.id`, and name the status, so
 * a later change of the same record is a new key.
 */
interface RepairOf<S extends string, R> {
  signal: S;
  /** The workflow ID to signal. */
  target: string;
  key: string;
  /** The event this state corresponds to (targets read only the key and the record). */
  event: EventName;
  record: R;
}

export type Repair =
  | RepairOf<'customer', CustomerRecord>
  | RepairOf<'deposit', DepositRecord>
  | RepairOf<'trade', TradeRecord>
  | RepairOf<'payment', PaymentRecord>;

export interface LagReport {
  repairs: Repair[];
  /** Records of the service's list that were looked at. */
  examined: number;
  /** Pages of the list read (one service call each). */
  pages: number;
  /** True when maxPages or maxRepairs cut the pass short. */
  truncated: boolean;
  /** Where the next run may stop reading this list (newest-first only). */
  watermark?: ListWatermark;
}

/** A pass over the rejected deposits (activities/reconcile-activities.ts, findRejectedDepositLag). */
export interface RejectedDepositLagReport extends LagReport {
  /** The newest `timestamp` among the rejected deposits read (ms since the epoch), or the `since` it was given. */
  newestChange?: number;
}

export interface ReconcileResult {
  /** `rejectedDeposits`: the rejected deposits re-read since the last run (scheduled runs past their first only). */
  examined: { customers: number; deposits: number; trades: number; rejectedDeposits?: number };
  /** Pages read of each list (one service call each; older results lack it). */
  pages?: { customers: number; deposits: number; trades: number; rejectedDeposits?: number };
  /** Targets signalled. */
  repaired: number;
  /** Targets that had finished between the check and the signal. */
  missed: number;
  truncated: boolean;
  /** Where this run read each list up to; the next scheduled run starts from it. */
  watermark: ReconcileWatermark;
}
