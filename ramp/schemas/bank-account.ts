/** Bank account (interface: "Bank account"). */
import { z } from 'zod';
import { Identifier, TimestampString } from './common';

export const BANK_ACCOUNT_CURRENCIES = ['GBP', 'EUR', 'AUD', 'SGD', 'USD'] as const;

/** Every field of the interface's table is required; currency stays open (the enum lists filter values). */
export const BankAccountSchema = z.looseObject({
  id: Identifier,
  customerId: Identifier,
  currency: z.string(),
  bankName: z.string(),
  accountNo: z.string(),
  swift: z.string(),
  createTime: TimestampString,
  updateTime: TimestampString,
});
export type BankAccount = z.infer<typeof BankAccountSchema>;

/**
 * POST /bank-account/add: registers a customer's own bank account (the offramp's and a payout's
 * exit). The fields are the real service's; the last three are optional. The answer is assumed to be
 * the new account's record, of which we rely on `id` only when present.
 */
export const AddBankAccountRequestSchema = z.object({
  customerId: Identifier,
  currency: z.enum(BANK_ACCOUNT_CURRENCIES),
  bankName: z.string().min(1),
  accountNo: z.string().min(1),
  swift: z.string().min(1),
  beneficiaryName: z.string().min(1),
  beneficiaryAddress: z.string().optional(),
  bankCountry: z.string().optional(),
  bankAddress: z.string().optional(),
});
export type AddBankAccountRequest = z.infer<typeof AddBankAccountRequestSchema>;
