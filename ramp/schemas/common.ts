/**
 * Building blocks shared by every resource schema (interface: "Conventions").
 *
 * Objects are `z.looseObject`: the service adds fields over time and they must pass through
 * untouched, while the fields we rely on are checked strictly.
 */
import { z } from 'zod';

/**
 * Amounts, rates and balances are decimal strings. We accept an optional sign and fraction and
 * nothing else (no exponent, no thousands separator), so arithmetic on them never guesses.
 */
export const DecimalString = z.string().regex(/^-?\d+(\.\d+)?$/, 'expected a decimal string such as "12.50"');

/** Identifiers are strings (interface: "Identifiers are strings"). */
export const Identifier = z.string().min(1);

/**
 * Timestamps are strings. Their shapes differ by resource (ISO 8601 for most, `YYYY-MM-DD HH:mm:ss`
 * for a payment), so we do not parse them here.
 */
export const TimestampString = z.string();

/** Optional fields the service may send as null as well as omit. */
export function optionalNullable<T extends z.ZodType>(schema: T) {
  return schema.nullable().optional();
}

/** `{status: "SUCCESS", data}`: every new-generation success. */
export function successEnvelope<T extends z.ZodType>(data: T) {
  return z.looseObject({ status: z.literal('SUCCESS'), data });
}

/** The paginated `data` of every list endpoint. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.looseObject({
    list: z.array(item),
    total: z.number().int().nonnegative(),
    pageNum: z.number().int(),
    pageSize: z.number().int(),
  });
}

export interface Page<T> {
  list: T[];
  total: number;
  pageNum: number;
  pageSize: number;
}

/**
 * The 422 failure body `{status, message}`. The status is a plain string here so that a status the
 * interface does not list still parses; errors.ts maps the known ones (INVALID_PARAMETERS,
 * UNAUTHORISED, FAILED).
 */
export const FailureEnvelopeSchema = z.looseObject({
  status: z.string(),
  message: z.string().optional(),
});

/** `{id}`: the data of the create endpoints that answer with the new record's id only. */
export const CreatedIdSchema = z.looseObject({ id: Identifier });
export type CreatedId = z.infer<typeof CreatedIdSchema>;

/**
 * Data of endpoints whose response shape is not shown: anything, left for the caller to narrow.
 * Typed `unknown` so no caller reads a field it has not checked.
 */
export const UnknownData = z.unknown();

/** Query parameters every paginated list takes (interface: "Limits"). */
export const PaginationSchema = z.object({
  pageNum: z.number().int().min(1).optional(),
  pageSize: z.number().int().min(1).max(100).optional(),
});
export type Pagination = z.infer<typeof PaginationSchema>;

/**
 * Data of a create endpoint whose response is not shown: an object that may carry the new record's
 * `id` (checked when present), everything else passed through.
 */
export const MaybeCreatedIdSchema = z.looseObject({ id: Identifier.optional() });
export type MaybeCreatedId = z.infer<typeof MaybeCreatedIdSchema>;
