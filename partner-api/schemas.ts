/**
 * The partner API's requests and answers, as zod schemas: the server validates with them and the
 * OpenAPI document (openapi.ts) is generated from them. The journey's input, state and the operator
 * updates are the workflows' own schemas (workflows/schemas.ts, workflows/schemas.ts),
 * so the HTTP API and the Temporal contract cannot disagree; partner events are the catalogue's own
 * (partner-events/catalogue.ts).
 */
import { z } from 'zod';
import { PARTNER_EVENT_STREAM, PartnerEventSchema } from '../partner-events/catalogue';
import { MAX_PAGE } from '../partner-events/page-limits';
import { CustomerDetailsSchema } from '../workflows/schemas';
import { DEPOSIT_STAGES, JOURNEY_STAGES } from '../workflows/common/messages';

export const ExternalIdParamsSchema = z.object({ externalId: CustomerDetailsSchema.shape.externalId });

/** A journey as POST /journeys answers it: where it runs and where to read it. */
export const JourneyReferenceSchema = z.object({
  externalId: z.string(),
  workflowId: z.string().describe('customer/<externalId>'),
  stateUrl: z.string().describe("GET this for the journey's state"),
});

/**
 * POST /journeys's answer: the journey's reference, its stage, and the KYC link when the service gave
 * it within the signup wait (201), without it otherwise (202).
 */
export const SignupAnswerSchema = JourneyReferenceSchema.extend({
  stage: z
    .enum(JOURNEY_STAGES)
    .optional()
    .describe("the journey's stage (as it answered, or as last indexed); absent only when it could not be read"),
  kycLink: z
    .string()
    .optional()
    .describe("where the customer passes KYC, from the service's own record; present in a 201, absent in a 202"),
});

/** A 201: the KYC link came back in the same round trip. */
export const SignupWithKycLinkSchema = SignupAnswerSchema.required({ stage: true, kycLink: true });

export const DepositPageQuerySchema = z.object({
  pageSize: z.coerce.number().int().min(1).max(1000).optional().describe('1 to 1000, default 100'),
  nextPageToken: z.base64url().optional().describe("the previous page's nextPageToken"),
  stage: z.enum(DEPOSIT_STAGES).optional(),
});

export const DepositItemSchema = z.object({
  depositId: z.string(),
  workflowId: z.string(),
  stage: z.enum(DEPOSIT_STAGES).optional().describe('as last indexed (visibility is eventually consistent)'),
  externalId: z.string().optional(),
  customerId: z.string().optional(),
  status: z.string().describe("the workflow's status: RUNNING, COMPLETED, ..."),
  startTime: z.iso.datetime(),
  closeTime: z.iso.datetime().optional(),
});

export const DepositPageSchema = z.object({
  deposits: z.array(DepositItemSchema),
  nextPageToken: z.string().optional().describe('absent on the last page'),
});

export const IssueSchema = z.object({
  path: z.string().describe('the bad field, e.g. customer.email'),
  message: z.string(),
});

/** GET /journeys/{externalId} of a journey that failed, was terminated, timed out or was cancelled. */
export const EndedJourneySchema = z.object({
  externalId: z.string(),
  status: z.enum(['FAILED', 'TERMINATED', 'TIMED_OUT', 'CANCELLED']).describe("how the journey's workflow ended"),
  stage: z.string().optional().describe('the stage it was last indexed at'),
  failure: z.object({
    type: z.string().describe('InvalidStartInput, Terminated, WorkflowTimedOut, Cancelled, ...'),
    message: z
      .string()
      .describe("the reason, decoded: the failure's message, or the operator's reason for a termination"),
    issues: z
      .array(IssueSchema)
      .optional()
      .describe('for InvalidStartInput: every bad field of the start input (paths and messages, never the values)'),
  }),
});

export const ErrorSchema = z.object({
  error: z.string(),
  issues: z.array(IssueSchema).optional().describe('for 400: every bad field'),
});

/** GET /events: a page of the partner-wide event log. */
export const EventPageQuerySchema = z.object({
  after: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe(
      "the `next` of the previous page (or any event's `cursor`); absent: from the first event. Opaque: pass it back as it came",
    ),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(100).describe(`1 to ${MAX_PAGE}, default 100`),
});

const cursorField = {
  cursor: z
    .string()
    .describe("the event's place in the partner-wide order: pass it as `after` to read what came after it"),
};

/** A catalogue event with its cursor, one variant per type as in the catalogue. */
export const PartnerEventWithCursorSchema = z.discriminatedUnion(
  'type',
  PartnerEventSchema.options.map((variant) =>
    variant.extend(cursorField).describe(variant.description ?? ''),
  ) as unknown as [z.ZodObject, ...z.ZodObject[]],
);

export const EventPageSchema = z.object({
  events: z.array(PartnerEventWithCursorSchema).describe('in the order rampflow stored them; at most `limit`'),
  next: z
    .string()
    .describe('the cursor to ask with next time (`after`); the same as the one asked with when nothing new came'),
});

/** GET /journeys/{externalId}/timeline: one customer's events. */
export const TimelineQuerySchema = z.object({
  afterSequence: z.coerce
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .default(0)
    .describe(
      "the last sequence already read (the previous page's nextAfterSequence); 0 or absent: from the first event",
    ),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(100).describe(`1 to ${MAX_PAGE}, default 100`),
});

export const TimelineSchema = z.object({
  events: z
    .array(PartnerEventSchema)
    .describe("the customer's events in sequence order; empty when there are none (yet)"),
  nextAfterSequence: z
    .number()
    .int()
    .min(0)
    .describe('pass as afterSequence for the events after these; the same as asked with when nothing new came'),
});

/** Streams whose deliveries parked after their retry period (client/partner-event-deliveries.ts). */
export const ParkedDeliveriesSchema = z.object({
  streams: z.array(
    z.object({
      stream: z.string().describe('customer/<externalId> or payout/<reference>'),
      workflowId: z.string().describe('partner-events/<stream>'),
      throughSequence: z.number().int().describe("the stream's last sequence recorded"),
      unreadable: z
        .string()
        .optional()
        .describe("set when the stream's workflow could not answer (no worker): parked, details unknown"),
      endpoints: z.array(
        z.object({
          name: z.string(),
          deliveredThrough: z.number().int().describe('the last sequence this endpoint has'),
          reason: z.string().describe("the last attempt's outcome: a status or a timeout, never an event's content"),
          since: z.string(),
        }),
      ),
    }),
  ),
});

export const ResendRequestSchema = z.object({
  stream: z.string().regex(PARTNER_EVENT_STREAM).describe('customer/<externalId> or payout/<reference>'),
  endpoint: z.string().optional().describe("only this endpoint's parked deliveries; all of the stream's when absent"),
});

export const ResendResultSchema = z.object({
  resumed: z.array(z.string()).describe('the endpoints whose deliveries resumed, each with a fresh retry period'),
});
