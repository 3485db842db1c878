/**
 * Validation of what callers send, before anything reaches Temporal: a journey's input and an
 * operator's corrected input. Errors name the field, e.g. `customer.email: Invalid email address`.
 */
import { z } from 'zod';
import {
  CorrectedInputSchema,
  CustomerDetailsSchema,
  type JourneyInput,
  JourneyInputSchema,
  SignupRequestSchema,
} from '../workflows/schemas';
import type { AttachmentFile } from '../attachments';
import type { RetryRequest } from '../workflows/common/messages';
import { RampflowInputError } from './errors';

export type CorrectedInput = NonNullable<RetryRequest['correctedInput']>;

function issuesOf(error: z.ZodError, prefix = ''): string[] {
  return error.issues.map((issue) => {
    const path = [prefix, ...issue.path.map(String)].filter((part) => part !== '').join('.');
    return `${path || '(input)'}: ${issue.message}`;
  });
}

function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, prefix?: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new RampflowInputError(issuesOf(result.error, prefix));
  return result.data;
}

export function parseJourneyRequest(request: unknown): JourneyInput {
  return parseOrThrow(JourneyInputSchema, request);
}

/** How long a signup waits for the KYC link, in seconds (0 to SIGNUP_WAIT_MAX_SECONDS). */
export function parseSignupWait(waitSeconds: unknown): number | undefined {
  return parseOrThrow(SignupRequestSchema.shape.waitSeconds, waitSeconds, 'waitSeconds');
}

/** The partner's user id, which is also part of the workflow ID and of visibility queries. */
export function parseExternalId(externalId: unknown): string {
  return parseOrThrow(CustomerDetailsSchema.shape.externalId, externalId, 'externalId');
}

/** The service's deposit id, as the deposit's workflow ID carries it. */
export function parseDepositId(depositId: unknown): string {
  return parseOrThrow(z.string().trim().min(1), depositId, 'depositId');
}

export function parseCorrectedInput(externalId: string, corrected: unknown): CorrectedInput {
  const parsed = parseOrThrow(CorrectedInputSchema, corrected, 'correctedInput');
  // The externalId names the journey's workflow: a correction can fix the details, never move them to another user.
  if (parsed.customer && parsed.customer.externalId !== externalId) {
    throw new RampflowInputError([`correctedInput.customer.externalId: must stay ${externalId}, the journey's own`]);
  }
  return parsed;
}

/** The service's limit is not stated; 10 MiB covers a scanned document and bounds what a store holds per deposit. */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

const AttachmentSchema = z.object({
  fileName: z.string().min(1).max(255),
  contentType: z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, 'a MIME type such as application/pdf'),
  content: z
    .instanceof(Uint8Array)
    .refine((bytes) => bytes.byteLength > 0, 'is empty')
    .refine((bytes) => bytes.byteLength <= MAX_ATTACHMENT_BYTES, `is larger than ${MAX_ATTACHMENT_BYTES} bytes`),
});

export function parseAttachment(attachment: unknown): AttachmentFile {
  return parseOrThrow(AttachmentSchema, attachment, 'attachment');
}
