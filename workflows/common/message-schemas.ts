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
import { z } from 'zod';
import { SIGNUP_WAIT_DEFAULT_SECONDS, SIGNUP_WAIT_MAX_SECONDS } from '../../config/signup-wait';
import { CustomerDetailsSchema, OfframpRequestSchema, OnrampRequestSchema } from './journey-input';
import { DEPOSIT_STAGES, JOURNEY_STAGES } from './stages';
import {
  CustomerRecordSchema,
  DecimalAmountSchema,
  DepositAddressRecordSchema,
  DepositRecordSchema,
  PaymentRecordSchema,
  rampEventSchema,
  TradeRecordSchema,
  VirtualAccountRecordSchema,
} from './record-schemas';

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
