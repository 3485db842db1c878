/** Autoramp flow (interface: "Autoramp flow (list item)", "Autoramp flows"). */
import { z } from 'zod';
import { Identifier, TimestampString } from './common';

export const AUTORAMP_FLOW_TYPES = ['ONRAMP', 'OFFRAMP'] as const;
export const AutorampFlowTypeSchema = z.enum(AUTORAMP_FLOW_TYPES);

export const AUTORAMP_FLOW_STATUSES = ['ENABLED', 'DISABLED'] as const;
export const AutorampFlowStatusSchema = z.enum(AUTORAMP_FLOW_STATUSES);

/** List items and detail alike carry no `customerId` and no `creator` since release 2026-03-27. */
export const AutorampFlowSchema = z.looseObject({
  id: Identifier,
  type: AutorampFlowTypeSchema,
  from: z.string(),
  to: z.string(),
  status: AutorampFlowStatusSchema,
  createTime: TimestampString,
});
export type AutorampFlow = z.infer<typeof AutorampFlowSchema>;

/** The detail's shape is not shown; we assume it is the list item's. */
export const AutorampFlowDetailSchema = AutorampFlowSchema;

/** POST /autoramp-flow/create links an existing entry to an existing exit. Requiredness not shown: we require all three. */
export const CreateAutorampFlowRequestSchema = z.looseObject({
  type: AutorampFlowTypeSchema,
  from: Identifier,
  to: Identifier,
});
export type CreateAutorampFlowRequest = z.infer<typeof CreateAutorampFlowRequestSchema>;

/** POST /autoramp-flow/onramp: a new virtual account (from) to an existing crypto address (to). */
export const CreateOnrampFlowRequestSchema = z.looseObject({
  from: z.looseObject({ customerId: Identifier, currency: z.string().min(1).optional() }),
  to: Identifier,
});
export type CreateOnrampFlowRequest = z.infer<typeof CreateOnrampFlowRequestSchema>;

/** POST /autoramp-flow/offramp: a new deposit address (from) to an existing bank account (to). */
export const CreateOfframpFlowRequestSchema = z.looseObject({
  from: z.looseObject({
    customerId: Identifier,
    currency: z.string().min(1).optional(),
    network: z.string().min(1).optional(),
  }),
  to: Identifier,
});
export type CreateOfframpFlowRequest = z.infer<typeof CreateOfframpFlowRequestSchema>;

/** POST /autoramp-flow/delete: request not shown; we assume the flow's `id`. */
export const DeleteAutorampFlowRequestSchema = z.looseObject({ id: Identifier });
export type DeleteAutorampFlowRequest = z.infer<typeof DeleteAutorampFlowRequestSchema>;
