/**
 * What a partner backend passes to start a customer journey: validated with zod by the client before
 * anything reaches Temporal, and again by the journey itself at its start (workflows/common/start-input.ts),
 * for callers that start it without the client (another SDK, the Temporal CLI, the Web UI).
 */
import { z } from 'zod';
import { bankAccountExitIssues, cryptoAddressExitIssues, onrampIssues, type RuleIssue } from './ramp-request-rules';
import type { JourneyTimings } from './timings';

/**
 * Every wait for the service has an event, a poll when no event came within the poll interval, and a
 * deadline. A starter overrides only what it must (tests pass seconds); the rest is resolved in
 * workflow code (workflows/common/timings.ts, JOURNEY_TIMING_DEFAULTS), so the input holds only the
 * overrides, continue-as-new carries only them, and a retune of a default reaches running journeys.
 * No defaults here on purpose: a default filled in by the client would be carried for the journey's
 * life. (Deposits run as workflows of their own, with their own timings: workflows/common/deposit-input.ts.)
 */
export const JourneyTimingsSchema = z
  .object({
    /** How long to wait for an event before asking the service directly. Default 900 (15 minutes). */
    pollIntervalSeconds: z.number().positive().optional().describe('default 900 (15 minutes)'),
    /**
     * The longest pause between two polls of one wait: the pauses double from the poll interval up to
     * this. Default 86400 (a day). With the defaults a signup abandoned at KYC is polled about 35 times
     * over its 30 days (not 2,900), while one who finishes KYC is picked up by the event or by
     * reconciliation within minutes; only a decision whose webhook was lost on a signup older than
     * reconciliation's reach waits for a poll, up to a day.
     */
    pollBackoffCapSeconds: z.number().positive().optional().describe('default 86400 (a day)'),
    /** How long KYC may take before the journey is parked for an operator. Default 2592000 (30 days). */
    kycDeadlineSeconds: z.number().positive().optional().describe('default 2592000 (30 days)'),
    /** How long the virtual account / deposit address approvals may take. Default 604800 (7 days). */
    accountsDeadlineSeconds: z.number().positive().optional().describe('default 604800 (7 days)'),
    /**
     * History length at which an ACTIVE journey continues as new (Temporal also suggests it). Default
     * 2000. Kept far below the server's limits per run (10,000 signals by default): a customer whose
     * deposits report in a burst must not reach them, and a worker that lost the journey from its cache
     * replays at most this many events. A continue-as-new costs a few KB (measured in bench/README.md).
     */
    maxHistoryEvents: z.number().int().min(100).optional().describe('default 2000'),
  })
  .describe(
    'optional overrides: what is left out takes the production default the workflow code resolves, so a later retune of that default reaches the journey',
  ) satisfies z.ZodType<Partial<JourneyTimings>>;

export const AudSourceAccountSchema = z.object({
  bsbNumber: z.string().regex(/^\d{6}$/, 'a BSB number is 6 digits'),
  accountNumber: z.string().regex(/^\d{4,10}$/, 'an account number is 4 to 10 digits'),
  accountName: z.string().min(1).optional(),
});

/**
 * Who registers an exit account with the service. `journey`: the journey looks the account up and
 * adds it where the service does not have it (POST /crypto-address/add, /bank-account/add), which
 * needs the account's details in the input. `partner` (the default, and what journeys started before
 * the journey could register meant): the partner registers it by other means (its dashboard, say) and
 * the journey waits until the service has it, up to `accountsDeadlineSeconds`.
 */
export const ExitRegistrationSchema = z.enum(['journey', 'partner']);

/** The rules that span fields live in ramp-request-rules.ts, where the workflow's own checks share them. */
function addRuleIssues(context: z.RefinementCtx, issues: RuleIssue[]): void {
  for (const { path, message } of issues) context.addIssue({ code: 'custom', path, message });
}

const NETWORK = z.string().regex(/^[A-Z0-9]{2,10}$/, 'a network code such as ETH');

/** The customer's wallet that receives the onramp's crypto. */
export const CryptoAddressExitSchema = z
  .object({
    address: z.string().min(1),
    network: NETWORK.optional(),
    registeredBy: ExitRegistrationSchema.optional(),
    /** What the journey registers the wallet for (USDT or USDC); required when the journey registers it. */
    currency: z.enum(['USDT', 'USDC']).optional(),
    label: z.string().min(1).max(64).optional(),
  })
  .superRefine((exit, context) => addRuleIssues(context, cryptoAddressExitIssues(exit)));

/** The customer's bank account that receives the offramp's payouts. */
export const BankAccountExitSchema = z
  .object({
    accountNo: z.string().min(1),
    registeredBy: ExitRegistrationSchema.optional(),
    /** The rest is what POST /bank-account/add takes; required (all but the last three) when the journey registers it. */
    currency: z.enum(['GBP', 'EUR', 'AUD', 'SGD', 'USD']).optional(),
    bankName: z.string().min(1).optional(),
    swift: z.string().min(1).optional(),
    beneficiaryName: z.string().min(1).optional(),
    beneficiaryAddress: z.string().min(1).optional(),
    bankCountry: z.string().min(1).optional(),
    bankAddress: z.string().min(1).optional(),
  })
  .superRefine((exit, context) => addRuleIssues(context, bankAccountExitIssues(exit)));

/**
 * The exits are the customer's own accounts. The partner knows them by address and account number;
 * the journey finds the service's records for them and, where it registers them, adds the missing.
 */
export const OnrampRequestSchema = z
  .object({
    /** The fiat currency the customer pays in (the virtual account's currency). */
    currency: z.string().regex(/^[A-Z]{3}$/, 'a fiat currency code such as AUD'),
    /** The customer's wallet that receives the crypto (the exit). */
    cryptoAddress: CryptoAddressExitSchema,
    /** AUD only: the bank account the customer pays from, whitelisted as the virtual account's sender. */
    audSourceAccount: AudSourceAccountSchema.optional(),
  })
  .superRefine((onramp, context) => addRuleIssues(context, onrampIssues(onramp)));

export const OfframpRequestSchema = z.object({
  /** The crypto currency the customer deposits. */
  currency: z.string().regex(/^[A-Z0-9]{2,10}$/, 'a crypto currency code such as USDT'),
  /** The network of the deposit address, for example ETH or TRX. */
  network: z.string().regex(/^[A-Z0-9]{2,10}$/, 'a network code such as ETH'),
  /** The customer's bank account that receives the payout (the exit). */
  bankAccount: BankAccountExitSchema,
});

export const CustomerDetailsSchema = z.looseObject({
  /** The partner's own user id; also the journey's workflow ID (`customer/<externalId>`). */
  externalId: z.string().regex(/^[A-Za-z0-9._:@-]{1,128}$/, 'letters, digits and . _ : @ - only, at most 128'),
  realName: z.string().min(1),
  email: z.email(),
});

export const JourneyInputSchema = z.object({
  customer: CustomerDetailsSchema,
  onramp: OnrampRequestSchema.optional(),
  offramp: OfframpRequestSchema.optional(),
  /** Overrides only; what is left out is resolved in workflow code (workflows/common/timings.ts). */
  timings: JourneyTimingsSchema.optional(),
});

/** The input as a caller writes it (timings optional). */
export type JourneyRequest = z.input<typeof JourneyInputSchema>;
/** The input as the workflow receives it (timings still only the overrides: workflows/common/timings.ts resolves them). */
export type JourneyInput = z.output<typeof JourneyInputSchema>;
export type { JourneyTimings } from './timings';
export type OnrampRequest = z.output<typeof OnrampRequestSchema>;
export type OfframpRequest = z.output<typeof OfframpRequestSchema>;
export type AudSourceAccount = z.output<typeof AudSourceAccountSchema>;
export type CustomerDetails = z.output<typeof CustomerDetailsSchema>;
