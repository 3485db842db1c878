/**
 * The payout workflow's contract, shared with the client library, the CLI and the event router: its
 * ID, input, stages, state query and the signal a PAYMENT_SETTLED event wakes it with. Operators
 * resume or end a parked payout with the `retry` and `cancel` updates every workflow takes
 * (messages.ts).
 */
import { defineQuery } from '@temporalio/workflow';
import type { Attention } from '../common/messages';

export { payoutWorkflowId } from '../common/messages';

/** What the service accepts as a payout's reference, and what keeps the workflow ID clean. */
export const PAYOUT_REFERENCE = /^[A-Za-z0-9._:-]{1,64}$/;

export interface PayoutTimings {
  /** How long without an event before the workflow asks the service itself. */
  pollIntervalSeconds: number;
  /** How long the payment may take to settle before the payout parks for an operator. */
  settlementDeadlineSeconds: number;
}

/** Production defaults: bank payouts settle within a business day or two; tests pass seconds. */
export const DEFAULT_PAYOUT_TIMINGS: PayoutTimings = {
  pollIntervalSeconds: 60 * 60,
  settlementDeadlineSeconds: 5 * 24 * 60 * 60,
};

export interface PayoutInput {
  /** The partner's own reference: the workflow ID, and the payment's `reference` at the service. */
  reference: string;
  /** The service's id of a bank account registered for the customer (POST /bank-account/add). */
  bankAccountId: string;
  /** The stablecoin the partner's balance is debited in. */
  deductCurrency: 'USDT' | 'USDC';
  /** Decimal string, in `deductCurrency`. */
  deductAmount: string;
  timings?: Partial<PayoutTimings>;
}

/** FAILED: the service failed the payment (its own word); CANCELLED: an operator ended a payout no payment of which exists (or only a failed one). */
export const PAYOUT_STAGES = [
  'CREATING_PAYMENT',
  'AWAITING_SETTLEMENT',
  'SETTLED',
  'NEEDS_ATTENTION',
  'CANCELLED',
  'FAILED',
] as const;
export type PayoutStage = (typeof PAYOUT_STAGES)[number];

export interface PayoutState {
  reference: string;
  stage: PayoutStage;
  paymentId?: string;
  /** The service's status of the payment (PENDING, CONFIRMED, FAILED, ...). */
  paymentStatus?: string;
  /** Why the service failed the payment, in its words, when it said. */
  paymentFailureReason?: string;
  receivedAmount?: string;
  receivedCurrency?: string;
  attention?: Attention;
  /** Why an operator ended it, when one did. */
  cancelledBecause?: string;
}

export const payoutStateQuery = defineQuery<PayoutState>('payoutState');
