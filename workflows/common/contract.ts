/**
 * What the published contract (workflows/schemas.ts, in zod) and the workflow code share, without
 * zod: the stages, the limits, and the rules that span fields. Schemas import this module, and
 * workflow code imports it instead of the schemas, so no zod reaches a workflow bundle.
 */

/** The stages a journey goes through, as its query, its `RampStage` search attribute and the contract name them. */
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

/** The stages a deposit goes through, as its query, its `RampStage` search attribute and the contract name them. */
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

/** Deposits' reports in one offer to their journey: one update's payload stays small (a report is a few hundred bytes). */
export const MAX_REPORTS_PER_OFFER = 100;

/**
 * The rules of a journey's ramp requests that span fields, which no JSON Schema of the contract
 * states: written once, here, without zod. The zod schemas in journey-input.ts apply them (the
 * client, the partner API, the contract's descriptions), and so do the journey's own checks of what
 * reaches it from any caller (workflows/common/checks.ts), which must not load zod (a workflow
 * instantiates every module it imports for itself: docs/deploying/sizing.md).
 */

export interface RuleIssue {
  /** The field's path below the object the rule is given. */
  path: string[];
  message: string;
}

interface CryptoAddressExitLike {
  registeredBy?: string;
  network?: string;
  currency?: string;
}

interface BankAccountExitLike {
  registeredBy?: string;
  currency?: string;
  bankName?: string;
  swift?: string;
  beneficiaryName?: string;
}

interface OnrampLike {
  currency: string;
  audSourceAccount?: unknown;
  cryptoAddress?: CryptoAddressExitLike;
}

interface OfframpLike {
  bankAccount?: BankAccountExitLike;
}

/** A wallet the journey registers itself needs what POST /crypto-address/add takes. */
export function cryptoAddressExitIssues(exit: CryptoAddressExitLike): RuleIssue[] {
  if (exit.registeredBy !== 'journey') return [];
  return [
    ...(exit.network ? [] : [{ path: ['network'], message: 'the journey registers the wallet only with its network' }]),
    ...(exit.currency
      ? []
      : [{ path: ['currency'], message: 'the journey registers the wallet only with its currency (USDT or USDC)' }]),
  ];
}

const BANK_FIELDS_TO_REGISTER = ['currency', 'bankName', 'swift', 'beneficiaryName'] as const;

/** A bank account the journey registers itself needs what POST /bank-account/add takes. */
export function bankAccountExitIssues(exit: BankAccountExitLike): RuleIssue[] {
  if (exit.registeredBy !== 'journey') return [];
  return BANK_FIELDS_TO_REGISTER.filter((field) => !exit[field]).map((field) => ({
    path: [field],
    message: `the journey registers the bank account only with its ${field}`,
  }));
}

/** Only an AUD onramp whitelists a source account. */
export function onrampIssues(onramp: OnrampLike): RuleIssue[] {
  return !onramp.audSourceAccount || onramp.currency === 'AUD'
    ? []
    : [{ path: ['audSourceAccount'], message: 'only an AUD onramp takes a source account' }];
}

/** Every rule above, at its place in a journey's input (or in an operator's corrected input). */
export function rampRequestIssues(request: { onramp?: OnrampLike; offramp?: OfframpLike }): RuleIssue[] {
  const below = (prefix: string[], issues: RuleIssue[]) =>
    issues.map((issue) => ({ ...issue, path: [...prefix, ...issue.path] }));
  return [
    ...(request.onramp?.cryptoAddress
      ? below(['onramp', 'cryptoAddress'], cryptoAddressExitIssues(request.onramp.cryptoAddress))
      : []),
    ...(request.onramp ? below(['onramp'], onrampIssues(request.onramp)) : []),
    ...(request.offramp?.bankAccount
      ? below(['offramp', 'bankAccount'], bankAccountExitIssues(request.offramp.bankAccount))
      : []),
  ];
}
