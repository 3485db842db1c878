/** Inputs, findings and results of the reconciliation workflow (workflows/reconcile.ts). */
import type { EventName } from '../ramp/events';
import type { CustomerRecord, DepositRecord, PaymentRecord, TradeRecord } from './records';

export interface ReconcileLimits {
  /** Pages of 100 read from each of the service's customer, deposit and trade lists per run. */
  maxPages: number;
  /** Signals one run sends at most (the rest wait for the next run). */
  maxRepairs: number;
}

export const DEFAULT_RECONCILE_LIMITS: ReconcileLimits = { maxPages: 100, maxRepairs: 200 };

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
  /** True when maxPages or maxRepairs cut the pass short. */
  truncated: boolean;
}

export interface ReconcileResult {
  examined: { customers: number; deposits: number; trades: number };
  /** Targets signalled. */
  repaired: number;
  /** Targets that had finished between the check and the signal. */
  missed: number;
  truncated: boolean;
}
