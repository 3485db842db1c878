/**
 * Validation of what callers send, before anything reaches Temporal: a journey's input and an
 * operator's corrected input. Errors name the field, e.g. `customer.email: Invalid email address`.
 */
import { z } from 'zod';
import { CustomerDetailsSchema, JourneyInputSchema, type JourneyInput } from '../workflows/journey-input';
import { AttachmentRequestSchema, CorrectedInputSchema } from '../workflows/message-schemas';
import type { AttachmentRequest, RetryRequest } from '../workflows/messages';
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

export function parseAttachment(attachment: unknown): AttachmentRequest {
  return parseOrThrow(AttachmentRequestSchema, attachment, 'attachment');
}
