/**
 * The older generation's POST /create-va (interface: "Virtual accounts", "Versioning").
 *
 * Field names are snake_case and every answer is HTTP 200 with the outcome in the body's `status`.
 * Only `to_address`, `to_network` and `signature` are documented; the other request fields and the
 * whole response are not shown, so both are loose.
 */
import { z } from 'zod';

export const LegacyWalletNetworkSchema = z.enum(['ETH', 'TRX']);

/**
 * `user_id` and `currency` are our assumption of what creating a virtual account needs (the user id
 * is also the one the ownership message names). When `to_address` and `to_network` are sent, the
 * ownership `signature` is required.
 */
export const LegacyCreateVaRequestSchema = z
  .looseObject({
    user_id: z.string().min(1),
    currency: z.string().min(1),
    to_address: z.string().min(1).optional(),
    to_network: LegacyWalletNetworkSchema.optional(),
    signature: z.string().min(1).optional(),
  })
  .superRefine((request, context) => {
    const hasAddress = request.to_address !== undefined;
    const hasNetwork = request.to_network !== undefined;
    if (hasAddress !== hasNetwork) {
      context.addIssue({
        code: 'custom',
        path: [hasAddress ? 'to_network' : 'to_address'],
        message: 'to_address and to_network go together',
      });
    }
    if (hasAddress && hasNetwork && request.signature === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['signature'],
        message: 'a wallet ownership signature is required with to_address and to_network',
      });
    }
  });
export type LegacyCreateVaRequest = z.infer<typeof LegacyCreateVaRequestSchema>;

/**
 * Every older-generation answer: a `status` (string or number; its values are not shown) and an
 * optional `message`, plus whatever else it carries.
 */
export const LegacyResponseSchema = z.looseObject({
  status: z.union([z.string(), z.number()]),
  message: z.string().optional(),
  msg: z.string().optional(),
});
export type LegacyResponse = z.infer<typeof LegacyResponseSchema>;

/*
 * The older generation's other endpoints (the real service has them; the interface document does
 * not). Every shape is our assumption, snake_case as that generation is, and loose: the answers are
 * returned whole, their outcome read from `status` like create-va's.
 */

/** POST /create-user: answers `user_id`. */
export const LegacyCreateUserRequestSchema = z.looseObject({
  email: z.string().min(1),
  name: z.string().min(1).optional(),
  external_id: z.string().min(1).optional(),
});
export type LegacyCreateUserRequest = z.infer<typeof LegacyCreateUserRequestSchema>;

/** POST /create-whitelist: a withdrawal address for a user; answers `whitelist_id`. */
export const LegacyCreateWhitelistRequestSchema = z.looseObject({
  user_id: z.string().min(1),
  address: z.string().min(1),
  network: z.string().min(1),
  label: z.string().optional(),
});
export type LegacyCreateWhitelistRequest = z.infer<typeof LegacyCreateWhitelistRequestSchema>;

/** POST /update-whitelist: changes an entry's address or label. */
export const LegacyUpdateWhitelistRequestSchema = z.looseObject({
  whitelist_id: z.string().min(1),
  address: z.string().min(1).optional(),
  label: z.string().optional(),
});
export type LegacyUpdateWhitelistRequest = z.infer<typeof LegacyUpdateWhitelistRequestSchema>;

/** GET /deposit-address: the partner's shared address for a currency and network. */
export const LegacyDepositAddressRequestSchema = z.object({ currency: z.string().min(1), network: z.string().min(1) });
export type LegacyDepositAddressRequest = z.infer<typeof LegacyDepositAddressRequestSchema>;
