/**
 * Request-body building blocks the sandbox validates against. They are the server's view (what it
 * accepts), deliberately separate from the client's schemas in ramp/schemas, so each can catch the
 * other's mistakes.
 */
import { z } from 'zod';
import { CRYPTO_CURRENCIES, FIAT_CURRENCIES, NETWORKS } from '../currencies';
import { DECIMAL_PATTERN } from '../decimal';

export const IdBody = z.object({ id: z.string().min(1) });

export const FiatCurrencySchema = z.enum(FIAT_CURRENCIES);
export const CryptoCurrencySchema = z.enum(CRYPTO_CURRENCIES);
export const NetworkSchema = z.enum(NETWORKS);

export const AmountSchema = z.string().regex(DECIMAL_PATTERN, 'must be a positive decimal string such as "100.50"');

/** An AUD source account (interface: create-aud-whitelist `sourceAccount`, virtual-account `whitelist`). */
export const SourceAccountSchema = z.object({
  bsbNumber: z.string().min(1),
  accountNumber: z.string().min(1),
  accountName: z.string().optional(),
});

export function toSourceAccount(input: z.infer<typeof SourceAccountSchema>) {
  return { bsbNumber: input.bsbNumber, accountNumber: input.accountNumber, accountName: input.accountName ?? null };
}
