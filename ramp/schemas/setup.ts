/**
 * The real service's setup endpoints, which the interface document leaves out: GET /health, GET
 * /basic-info (the partner's own record) and GET /callback-url. Their shapes are our assumptions, kept
 * loose: only the fields named here are checked.
 */
import { z } from 'zod';
import { Identifier, optionalNullable } from './common';

/** GET /health: `data.status` (`UP` when the service is up). */
export const HealthSchema = z.looseObject({ status: z.string() });
export type Health = z.infer<typeof HealthSchema>;

/** GET /basic-info: the partner's own record, with at least its id. */
export const PartnerInfoSchema = z.looseObject({ id: Identifier, name: optionalNullable(z.string()) });
export type PartnerInfo = z.infer<typeof PartnerInfoSchema>;

/** GET /callback-url: the registered URL, null when none is. */
export const CallbackUrlSchema = z.looseObject({ callbackUrl: z.string().nullable() });
export type CallbackUrl = z.infer<typeof CallbackUrlSchema>;
