/**
 * The stages a journey and a deposit go through, as their queries, search attributes and schemas
 * (workflows/common/messages.ts, workflows/common/message-schemas.ts) name them: a module of their own so those two
 * need not import each other.
 */

export const JOURNEY_STAGES = [
  'CREATING_CUSTOMER',
  'AWAITING_KYC',
  'SETTING_UP_RAMPS',
  'AWAITING_ACCOUNTS',
  'ACTIVE',
  'NEEDS_ATTENTION',
  'REJECTED',
  'CLOSED',
] as const;
export type JourneyStage = (typeof JOURNEY_STAGES)[number];

export const DEPOSIT_STAGES = [
  'RECEIVED',
  'ACTION_REQUIRED',
  'CONFIRMED',
  'TRADE_CREATED',
  'TRADE_SETTLED',
  'PAYMENT_SETTLED',
  'COMPLETED',
  'REJECTED',
  'NEEDS_ATTENTION',
  'CANCELLED',
  /** A delivery named a deposit the service does not have: nothing moved, nothing reported (workflows/common/trust.ts). */
  'DISMISSED',
  /**
   * Ended: the service refunded the deposit after it had CONFIRMED it (its trade created or settled,
   * or its payout made), which it shows as REJECTED (DEPOSIT_REFUND in ramp/assumptions.ts). Unlike
   * REJECTED, money had moved: a completed deposit's amount leaves the journey's completed totals.
   */
  'REVERSED',
] as const;
export type DepositStage = (typeof DEPOSIT_STAGES)[number];
