/**
 * The published contract in zod: the journey's and the deposit's start inputs, the records, the
 * messages and the deposits' reports. Workflow code imports these as types only (it loads no zod: the
 * checks it runs are generated from here, workflows/common/checks.ts); the client library, the partner
 * API and `rampflow contract` validate with them.
 */
import { z } from 'zod';
import {
  bankAccountExitIssues,
  cryptoAddressExitIssues,
  DEPOSIT_STAGES,
  JOURNEY_STAGES,
  MAX_REPORTS_PER_OFFER,
  onrampIssues,
  type RuleIssue,
} from './common/contract';
import type { DepositTimings, JourneyTimings } from './common/timings';
import { SIGNUP_WAIT_DEFAULT_SECONDS, SIGNUP_WAIT_MAX_SECONDS } from '../config/signup-wait';

/**
 * zod schemas of the record slices in workflows/common/records.ts: what signals carry, what the query answers
 * show and what a deposit's workflow starts with. They feed the published contract
 * (contract/rampflow.contract.json) and validate a deposit's start input. The interfaces in records.ts
 * stay the types the code uses; test/contract/schema-types.test.ts fails to type-check when the two
 * drift apart.
 */
/**
 * An amount as the service writes it (its DecimalString, ramp/schemas/common.ts, which workflow
 * modules may not import). A journey adds its deposits' amounts into its totals, and an amount that
 * is not a decimal would fail every workflow task that applied it: a deposit's start input and a
 * journey's deposit reports are refused at their check instead.
 */
export const DecimalAmountSchema = z
  .string()
  .max(64)
  .regex(/^-?\d+(\.\d+)?$/, 'a decimal amount such as "12.50"');

export const CustomerRecordSchema = z.object({
  id: z.string().min(1),
  status: z.string().describe('CREATED, PENDING, APPROVED (or CONFIRMED), REJECTED, DELETED'),
  externalId: z.string().optional(),
  kycLink: z.string().optional(),
});

export const VirtualAccountRecordSchema = z.object({
  id: z.string().min(1),
  status: z.string().describe('PENDING, VERIFIED, REJECTED'),
  currency: z.string().optional(),
  accountNumber: z.string().optional(),
  bicSwift: z.string().optional(),
  payId: z.string().optional(),
  bankName: z.string().optional(),
});

export const DepositAddressRecordSchema = z.object({
  id: z.string().min(1),
  status: z.string(),
  address: z.string().optional(),
  network: z.string().optional(),
  currency: z.string().optional(),
});

export const DepositRecordSchema = z.object({
  id: z.string().min(1),
  customerId: z.string().min(1),
  status: z.string().describe('RECEIVED, CONFIRMED, ACTION_REQUIRED, REJECTED'),
  amount: DecimalAmountSchema,
  currency: z.string().min(1),
  virtualAccountId: z
    .string()
    .optional()
    .describe('set for an onramp deposit: the virtual account the money arrived at'),
  depositAddressId: z
    .string()
    .optional()
    .describe('set for an offramp deposit: the deposit address the crypto arrived at'),
});

export const TradeRecordSchema = z.object({
  id: z.string().min(1),
  status: z.string(),
  depositId: z.string().optional(),
  fromAmount: z.string(),
  fromCurrency: z.string(),
  toAmount: z.string(),
  toCurrency: z.string(),
  paymentId: z.string().optional(),
  createdAt: z.number().optional().describe('when the service created the trade (epoch milliseconds, its createTime)'),
});

export const PaymentRecordSchema = z.object({
  id: z.string().min(1),
  status: z.string(),
  reference: z.string().optional(),
  receivedAmount: z.string().optional(),
  receivedCurrency: z.string().optional(),
  failureReason: z.string().max(200).optional(),
});

/** One service event as a workflow receives it (RampEvent<R> in records.ts). */
export function rampEventSchema<R extends z.ZodType>(record: R) {
  return z.object({
    key: z.string().min(1).describe('EVENT/payload.id: the target applies each key at most once'),
    // A string here: workflow code may not import ramp/ (where the names are listed) at run time.
    event: z.string().describe('the service event, new-format name (e.g. CUSTOMER_APPROVED, DEPOSIT_RECEIVED)'),
    record,
    fromPayload: z
      .literal(true)
      .optional()
      .describe(
        'set when the record is the delivered payload (the receiver routed the event directly) rather than read from the service',
      ),
  });
}

/**
 * What a partner backend passes to start a customer journey: validated with zod by the client before
 * anything reaches Temporal, and again by the journey itself at its start (workflows/common/checks.ts),
 * for callers that start it without the client (another SDK, the Temporal CLI, the Web UI).
 */
/**
 * Every wait for the service has an event, a poll when no event came within the poll interval, and a
 * deadline. A starter overrides only what it must (tests pass seconds); the rest is resolved in
 * workflow code (workflows/common/timings.ts, JOURNEY_TIMING_DEFAULTS), so the input holds only the
 * overrides, continue-as-new carries only them, and a retune of a default reaches running journeys.
 * No defaults here on purpose: a default filled in by the client would be carried for the journey's
 * life. (Deposits run as workflows of their own, with their own timings: workflows/schemas.ts.)
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
export type { JourneyTimings } from './common/timings';
export type OnrampRequest = z.output<typeof OnrampRequestSchema>;
export type OfframpRequest = z.output<typeof OfframpRequestSchema>;
export type AudSourceAccount = z.output<typeof AudSourceAccountSchema>;
export type CustomerDetails = z.output<typeof CustomerDetailsSchema>;

/**
 * What starts a deposit's workflow, `deposit/<depositId>`, as a zod schema that the contract publishes
 * and the workflow checks at its start (with the check generated from it: workflows/common/checks.ts). Whoever learns of the deposit first
 * (the event path, reconciliation, an operator) starts it with signal-with-start, passing what it
 * already knows; the workflow reads the rest from the service.
 */
/**
 * What a starter may override (workers pass their DEPOSIT_* settings, see
 * RampflowWorkerOptions.depositTimings; tests pass seconds). The defaults are resolved in workflow
 * code (workflows/common/timings.ts, DEPOSIT_TIMING_DEFAULTS), never filled into the input.
 */
export const DepositTimingsSchema = z
  .object({
    /** How long to wait for an event before asking the service directly. Default 900 (15 minutes). */
    pollIntervalSeconds: z.number().positive().optional().describe('default 900 (15 minutes)'),
    /** The longest pause between two polls of one step: the pauses double from the poll interval up to this. Default 21600 (6 hours). */
    pollBackoffCapSeconds: z.number().positive().optional().describe('default 21600 (6 hours)'),
    /** How long each step (confirmation, trade, settlement, payout) may take before the deposit parks. Default 259200 (3 days). */
    stepDeadlineSeconds: z.number().positive().optional().describe('default 259200 (3 days)'),
    /** How long a deposit the service does not have is given to appear before it is dismissed (workflows/common/trust.ts). Default 60. */
    notFoundGraceSeconds: z.number().positive().optional().describe('default 60'),
  })
  .describe(
    'optional overrides: what is left out takes the production default the workflow code resolves',
  ) satisfies z.ZodType<Partial<DepositTimings>>;

export const DepositLifecycleInputSchema = z.object({
  depositId: z.string().min(1),
  /** The deposit as the starter read it from the service; read afresh when absent. */
  deposit: DepositRecordSchema.optional(),
  /** The customer's externalId (so its journey, `customer/<externalId>`), when the starter knows it. */
  externalId: CustomerDetailsSchema.shape.externalId.optional(),
  /**
   * Set on a run started to report that the service refunded a deposit whose earlier run COMPLETED
   * (client/deposit-delivery.ts): the run reads the record, and reports REVERSED to the journey.
   */
  reversalOf: z.literal('COMPLETED').optional(),
  /** Overrides only; what is left out is resolved in workflow code (workflows/common/timings.ts). */
  timings: DepositTimingsSchema.optional(),
});

export type { DepositTimings } from './common/timings';
export type DepositLifecycleRequest = z.input<typeof DepositLifecycleInputSchema>;
export type DepositLifecycleInput = z.output<typeof DepositLifecycleInputSchema>;

/**
 * zod schemas of every message rampflow's workflows take or answer (workflows/common/messages.ts): the
 * signals' arguments, the operator updates' requests and answers, the query answers, and the
 * workflows' results. The client library validates what it sends with them, and the published contract
 * (`rampflow contract`, contract/rampflow.contract.json) is generated from them, so a caller in any
 * language sees exactly what the TypeScript code accepts.
 *
 * The update requests' types are derived from these schemas. JourneyState, DepositState and
 * DepositSummary keep their interfaces in messages.ts; test/contract/schema-types.test.ts fails to
 * type-check when a schema here and its interface drift apart.
 */
// ---- query answers ------------------------------------------------------------------------------

export const AttentionSchema = z.object({
  reason: z.string(),
  stage: z.string().describe('the stage that was parked, which `retry` resumes'),
  errorType: z
    .string()
    .optional()
    .describe('the failure type when a service error parked it (InvalidParameters, Unauthorised, ...)'),
  since: z.string().describe('ISO 8601 time of parking'),
});

export const DepositSummarySchema = z.object({
  depositId: z.string(),
  kind: z.enum(['ONRAMP', 'OFFRAMP']),
  stage: z.enum(DEPOSIT_STAGES),
  amount: DecimalAmountSchema,
  currency: z.string(),
  tradeId: z.string().optional(),
  paymentId: z.string().optional(),
  attention: AttentionSchema.optional(),
});

export const JourneyDepositsSchema = z.object({
  byStage: z
    .partialRecord(z.enum(DEPOSIT_STAGES), z.number().int().nonnegative())
    .describe("how many of the customer's deposits stand at each stage now"),
  completedTotals: z
    .record(z.string(), z.string())
    .describe(
      'amounts of completed deposits per currency (decimal strings), less those since refunded (never below zero)',
    ),
  reversedTotals: z
    .record(z.string(), z.string())
    .describe(
      'amounts of deposits the service refunded after confirming them (REVERSED), per currency (decimal strings)',
    ),
  reversedDepositIds: z.array(z.string()).describe('the last deposits reversed, newest first (a bounded few)'),
  open: z.array(DepositSummarySchema).describe('deposits in progress, oldest first, up to a cap'),
  openNotShown: z.number().int().nonnegative().describe('deposits in progress beyond the cap: counted, not listed'),
  recent: z.array(DepositSummarySchema).describe('the last deposits that ended, newest first'),
});

export const DepositProgressSchema = z.object({
  summary: DepositSummarySchema,
  previousStage: z.enum(DEPOSIT_STAGES).optional().describe('the stage the journey last heard of this deposit'),
});

export const JourneyStateSchema = z.object({
  externalId: z.string(),
  stage: z.enum(JOURNEY_STAGES),
  waitingFor: z.string().describe("one line on what the journey is waiting for (also the Web UI's current details)"),
  attention: AttentionSchema.optional(),
  customer: z.object({ id: z.string().optional(), status: z.string().optional(), kycLink: z.string().optional() }),
  onramp: z
    .object({
      currency: z.string(),
      cryptoAddressId: z.string().optional(),
      flowId: z.string().optional(),
      virtualAccount: VirtualAccountRecordSchema.optional().describe(
        'the account details to show the user so they can pay in',
      ),
      whitelisted: z.boolean().optional(),
    })
    .optional(),
  offramp: z
    .object({
      currency: z.string(),
      network: z.string(),
      bankAccountId: z.string().optional(),
      flowId: z.string().optional(),
      depositAddress: DepositAddressRecordSchema.optional().describe(
        'the address to show the user so they can deposit crypto',
      ),
    })
    .optional(),
  deposits: JourneyDepositsSchema.describe(
    "bounded whatever the customer's history; the full list comes from `rampflow deposit list --customer`",
  ),
  outcome: z.string().optional().describe('how the journey ended, once it has'),
});

export const DepositStateSchema = DepositSummarySchema.extend({
  customerId: z.string(),
  waitingFor: z.string(),
  status: z.string().describe("the deposit's status at the service"),
  outcome: z.string().optional(),
});

// ---- workflow results -----------------------------------------------------------------------------

export const JourneyOutcomeSchema = z.object({ stage: z.enum(['REJECTED', 'CLOSED']), reason: z.string() });
export const DepositOutcomeSchema = z.object({
  stage: z.enum(['COMPLETED', 'REJECTED', 'CANCELLED', 'DISMISSED', 'REVERSED']),
  reason: z.string(),
});

// ---- operator updates -----------------------------------------------------------------------------

// Strict, so a misspelt key (`onRamp`) is refused instead of silently changing nothing. The workflow
// replaces each part given whole, so each part must be complete.
export const CorrectedInputSchema = z.strictObject({
  customer: CustomerDetailsSchema.optional(),
  onramp: OnrampRequestSchema.optional(),
  offramp: OfframpRequestSchema.optional(),
});

export const RetryRequestSchema = z.object({
  correctedInput: CorrectedInputSchema.optional().describe(
    "each part given replaces that part of the journey's input; customer.externalId cannot change",
  ),
  bulk: z
    .boolean()
    .optional()
    .describe(
      'one of many retried at once (`retry --all`): the resumed calls to the service wait behind signups and payouts',
    ),
});
export const RetryResultSchema = z.object({ resumed: z.string().describe('the stage resumed') });

export const EndRequestSchema = z.object({ reason: z.string().optional().describe('recorded as the outcome') });
export const CancelResultSchema = z.object({ cancelled: z.literal(true) });
export const CloseResultSchema = z.object({ closed: z.literal(true) });

/**
 * A document as a claim check: the bytes stay in the attachment store (attachments/); only this
 * reference and their hash enter the history. Strict: anything else (the bytes themselves) is refused.
 */
export const AttachmentReferenceSchema = z.strictObject({
  reference: z.string().min(1).max(200).describe("the attachment store's key of the bytes"),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'the hex SHA-256 of the bytes')
    .describe('the activity refuses bytes that do not match it'),
  fileName: z.string().min(1).max(255),
  contentType: z.string().min(1).max(255),
  size: z.number().int().positive().describe('bytes'),
});
export const AttachmentResultSchema = z.object({ submitted: z.literal(true) });

// ---- signup (update-with-start) --------------------------------------------------------------------

export const SignupRequestSchema = z.object({
  waitSeconds: z
    .number()
    .min(0)
    .max(SIGNUP_WAIT_MAX_SECONDS)
    .optional()
    .describe(
      `how long to wait for the service's KYC link (default ${SIGNUP_WAIT_DEFAULT_SECONDS}, at most ${SIGNUP_WAIT_MAX_SECONDS}); 0 answers at once`,
    ),
});
export const SignupResultSchema = z.object({
  stage: z.enum(JOURNEY_STAGES).describe("the journey's stage when it answered"),
  waitingFor: z.string().describe('one line on what the journey is waiting for'),
  kycLink: z
    .string()
    .optional()
    .describe("where the customer passes KYC, from the service's own record; absent when not known within the wait"),
});

// ---- signals ----------------------------------------------------------------------------------------

export const SignalSchemas = {
  customerEvent: rampEventSchema(CustomerRecordSchema),
  virtualAccountEvent: rampEventSchema(VirtualAccountRecordSchema),
  depositAddressEvent: rampEventSchema(DepositAddressRecordSchema),
  depositEvent: rampEventSchema(DepositRecordSchema),
  tradeEvent: rampEventSchema(TradeRecordSchema),
  paymentEvent: rampEventSchema(PaymentRecordSchema),
  depositProgress: DepositProgressSchema,
};

/**
 * The zod schema of what a journey's `depositReports` update takes (workflows/common/messages.ts): its
 * deposits' reports, batched. The journey checks offers with the check generated from it
 * (workflows/common/checks.ts); no workflow imports it.
 */
export const DepositReportsSchema = z
  .array(z.object({ key: z.string().min(1).max(200), progress: DepositProgressSchema }))
  .min(1)
  .max(MAX_REPORTS_PER_OFFER);
