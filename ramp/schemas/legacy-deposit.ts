/**
 * GET /legacy-deposit/list and /legacy-deposit/detail: deposits as the older generation numbers them
 * (integer ids). New-generation envelopes; the record's fields beyond these are assumed loose.
 */
import { z } from 'zod';
import { DecimalString, optionalNullable } from './common';

export const LegacyDepositSchema = z.looseObject({
  id: z.number().int(),
  currency: z.string(),
  amount: DecimalString,
  status: z.string(),
  txid: optionalNullable(z.string()),
});
export type LegacyDeposit = z.infer<typeof LegacyDepositSchema>;
