/** Deposit address (interface: "Deposit address": fields not shown). */
import { z } from 'zod';
import { Identifier, optionalNullable } from './common';

/**
 * The interface shows no field. `id` is required because an event's de-duplication key is
 * `payload.id`; the rest is our guess by analogy with crypto addresses and virtual accounts, all
 * optional, and anything else passes through.
 */
export const DepositAddressSchema = z.looseObject({
  id: Identifier,
  customerId: optionalNullable(z.string()),
  currency: optionalNullable(z.string()),
  network: optionalNullable(z.string()),
  address: optionalNullable(z.string()),
  status: optionalNullable(z.string()),
});
export type DepositAddress = z.infer<typeof DepositAddressSchema>;

/**
 * POST /deposit-address/create: request not shown. We assume the same `customerId`, `currency` and
 * `network` the offramp flow's `from` carries; extra fields pass through.
 */
export const CreateDepositAddressRequestSchema = z.looseObject({
  customerId: Identifier,
  currency: z.string().min(1),
  network: z.string().min(1),
});
export type CreateDepositAddressRequest = z.infer<typeof CreateDepositAddressRequestSchema>;
