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
