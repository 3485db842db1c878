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
export type PaymentBankAccount = z.infer<typeof PaymentBankAccountSchema>;

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
