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
