/** Payment (interface: "Payment"). */
import { z } from 'zod';
import { DecimalString, Identifier, TimestampString, optionalNullable } from './common';

/**
 * The payee bank account comes in two variants: the detail's (`bankName`, `accountNo`, `swift`,
 * `beneficiaryName`, `beneficiaryAddress`, `bankCountry`, `bankAddress`) and the event's (`bankName`,
 * `accountNo`, `currency`, `beneficiaryName`). The fields both carry are required; the rest optional.
 */
export const PaymentBankAccountSchema = z.looseObject({
  bankName: z.string(),
  accountNo: z.string(),
  beneficiaryName: z.string(),
  swift: optionalNullable(z.string()),
  beneficiaryAddress: optionalNullable(z.string()),
  bankCountry: optionalNullable(z.string()),
  bankAddress: optionalNullable(z.string()),
  currency: optionalNullable(z.string()),
});

/** Every field of the interface's table is required; `createTime` is shaped `YYYY-MM-DD HH:mm:ss`. */
export const PaymentSchema = z.looseObject({
  id: Identifier,
  status: z.string(),
  rate: DecimalString,
  deductAmount: DecimalString,
  deductCurrency: z.string(),
  receivedCurrency: z.string(),
  receivedAmount: DecimalString,
  bankCharge: DecimalString,
  reference: z.string(),
  createTime: TimestampString,
  bankAccount: PaymentBankAccountSchema,
});
export type Payment = z.infer<typeof PaymentSchema>;

/** The stablecoins a payout may be deducted from (the real service's `deductCurrency`). */
export const PAYOUT_DEDUCT_CURRENCIES = ['USDT', 'USDC'] as const;

/**
 * POST /payment/create: pays a registered bank account from the partner's own balance. Assumed
 * shape (the interface does not show it): the bank account's id, the stablecoin to deduct, the
 * amount to deduct in it, and the partner's `reference`, which the payment carries back and which
 * the payment list filters on, so a payout whose answer was lost can be found instead of resent.
 * A short balance is refused with 422 FAILED.
 */
export const CreatePaymentRequestSchema = z.object({
  bankAccountId: Identifier,
  deductCurrency: z.enum(PAYOUT_DEDUCT_CURRENCIES),
  deductAmount: DecimalString,
  reference: z.string().min(1).max(64),
});
export type CreatePaymentRequest = z.infer<typeof CreatePaymentRequestSchema>;

/** GET /payment/list items are assumed to be payment records, like the detail. */
export const PaymentListItemSchema = PaymentSchema;
