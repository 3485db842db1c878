/**
 * zod schemas of the record slices in workflows/common/records.ts: what signals carry, what the query answers
 * show and what a deposit's workflow starts with. They feed the published contract
 * (contract/rampflow.contract.json) and validate a deposit's start input. The interfaces in records.ts
 * stay the types the code uses; test/contract/schema-types.test.ts fails to type-check when the two
 * drift apart.
 */
import { z } from 'zod';

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
