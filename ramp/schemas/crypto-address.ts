/** Crypto address (interface: "Crypto address"). */
import { z } from 'zod';
import { Identifier, TimestampString } from './common';

export const CRYPTO_ADDRESS_CURRENCIES = ['USDT', 'USDC'] as const;

/** Every field of the interface's table is required; currency and network stay open strings. */
export const CryptoAddressSchema = z.looseObject({
  id: Identifier,
  customerId: Identifier,
  currency: z.string(),
  address: z.string(),
  label: z.string(),
  network: z.string(),
  createTime: TimestampString,
  updateTime: TimestampString,
});
export type CryptoAddress = z.infer<typeof CryptoAddressSchema>;

/**
 * POST /crypto-address/add: registers a customer's own wallet (the onramp's exit). The fields are
 * the real service's; `label` is optional. The answer is assumed to be the new address's record, of
 * which we rely on `id` only when present (a caller without one looks the address up).
 */
export const AddCryptoAddressRequestSchema = z.object({
  customerId: Identifier,
  currency: z.enum(CRYPTO_ADDRESS_CURRENCIES),
  network: z.string().min(1),
  address: z.string().min(1),
  label: z.string().optional(),
});
export type AddCryptoAddressRequest = z.infer<typeof AddCryptoAddressRequestSchema>;
