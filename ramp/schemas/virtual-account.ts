/** Virtual account and AUD whitelist (interface: "Virtual account", "AUD whitelist entry"). */
import { z } from 'zod';
import { Identifier, optionalNullable } from './common';

/**
 * Fields are "fields seen". `id`, `customerId`, `currency` and `status` identify the account and its
 * state, so they are required; the banking details appear only once the provider has confirmed the
 * account, so they are optional.
 */
export const VirtualAccountSchema = z.looseObject({
  id: Identifier,
  customerId: Identifier,
  currency: z.string(),
  status: z.string(),
  customerName: optionalNullable(z.string()),
  accountNumber: optionalNullable(z.string()),
  bicSwift: optionalNullable(z.string()),
  payId: optionalNullable(z.string()),
  bankName: optionalNullable(z.string()),
});
export type VirtualAccount = z.infer<typeof VirtualAccountSchema>;

/** The whitelisted source account of an AUD virtual account, as sent. */
export const AudSourceAccountSchema = z.looseObject({
  bsbNumber: z.string().min(1),
  accountNumber: z.string().min(1),
  accountName: z.string().optional(),
});

/**
 * POST /virtual-account/create. Only `whitelist` is documented; `customerId` and `currency` are our
 * assumption of what a create needs (the onramp flow's `from` carries the same pair). Extra fields
 * pass through.
 */
export const CreateVirtualAccountRequestSchema = z.looseObject({
  customerId: Identifier,
  currency: z.string().min(1),
  whitelist: AudSourceAccountSchema.optional(),
});
export type CreateVirtualAccountRequest = z.infer<typeof CreateVirtualAccountRequestSchema>;

/**
 * POST /virtual-account/create-aud-whitelist. `sourceAccount` is documented; which virtual account it
 * belongs to is not shown, and we assume a `virtualAccountId` field. `accountStatus` is set by the server.
 */
export const CreateAudWhitelistRequestSchema = z.looseObject({
  virtualAccountId: Identifier,
  sourceAccount: AudSourceAccountSchema,
});
export type CreateAudWhitelistRequest = z.infer<typeof CreateAudWhitelistRequestSchema>;

/**
 * POST /virtual-account/update-aud-whitelist (shape assumed): replaces the source account of one
 * whitelist entry (its integer `id`); the server sets the status again, as on create.
 */
export const UpdateAudWhitelistRequestSchema = z.looseObject({
  virtualAccountId: Identifier,
  id: z.number().int().positive(),
  sourceAccount: AudSourceAccountSchema,
});
export type UpdateAudWhitelistRequest = z.infer<typeof UpdateAudWhitelistRequestSchema>;

/** An entry of GET /virtual-account/get-aud-whitelist. `accountName` is optional since create makes it so. */
export const AudWhitelistEntrySchema = z.looseObject({
  id: z.number().int(),
  bsbNumber: z.string(),
  accountNumber: z.string(),
  accountName: optionalNullable(z.string()),
  accountStatus: z.string(),
});
export type AudWhitelistEntry = z.infer<typeof AudWhitelistEntrySchema>;
