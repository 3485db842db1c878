/**
 * When a parked payout (workflows/payout/workflow.ts) continues as new, and what it hands to its next run.
 *
 * A parked payout hears every PAYMENT_SETTLED delivered about its payment, and someone holding the
 * webhook token can send as many as they like. So once a parked run's history has passed
 * PAYOUT_MAX_HISTORY_EVENTS (or the server suggests it), the payout continues as new still parked
 * (PARKED_CONTINUES_AS_NEW, workflows/common/operator.ts), carrying what it holds: each field is bounded.
 */
import { workflowInfo } from '@temporalio/workflow';
import type { CarriedParking } from '../common/operator';
import { PARKED_CONTINUES_AS_NEW, takesPatch } from '../common/patches';
import type { PayoutState } from './messages';
import type { PaymentRecord } from '../common/records';

/** The history a parked payout run grows to before it continues as new (a payout's whole life is a few dozen events). */
export const PAYOUT_MAX_HISTORY_EVENTS = 1_000;

/** Whether a parked payout's run has grown enough to continue as new (the patch is asked only once it has). */
export function parkedPayoutHistoryFull(): boolean {
  const info = workflowInfo();
  return (
    (info.continueAsNewSuggested || info.historyLength > PAYOUT_MAX_HISTORY_EVENTS) &&
    takesPatch(PARKED_CONTINUES_AS_NEW)
  );
}

/** What a parked payout hands to its next run, with a version number for the code that takes it up. */
export interface CarriedPayout {
  version: 1;
  state: PayoutState;
  /** The service's record of the payment, when one was created. */
  payment?: PaymentRecord;
  parking: CarriedParking;
  /** An event about the payment came that the run had not yet looked at. */
  eventWhileParked: boolean;
}
