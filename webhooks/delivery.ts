/**
 * Turns a delivered body into what the ramp-event workflow is started with (and the payload, for the
 * receiver's direct routing), or a reason to answer 400.
 *
 * The envelope must be `{event, payload: {id}}`; an older event name is mapped to its new name first,
 * so one event delivered under both names has one workflow ID. That envelope is all we require: the
 * payload is only a hint (the ramp-event workflow re-reads the service's record), so a payload that
 * does not have its resource's shape (ramp/schemas) is still handed over, with the paths of the fields
 * that did not match reported beside it for the metric and the log. Refusing it would cost the event:
 * the service retries four times over a week and then drops it. An unknown event name with a
 * well-formed envelope is accepted too, and its workflow parks it for operators.
 *
 * Only the name, the payload's id and a compact hint (a status and the ids the router compares with
 * the service's record) leave this file: the payload itself may carry kycLinks, names and account
 * numbers, and never reaches a workflow history.
 */
import { z } from 'zod';
import { EVENT_RESOURCE, eventKey, normaliseEventName, type EventName } from '../ramp/events';
import { eventPayloadSchema } from '../ramp/schemas/events';
import { eventWorkflowId } from '../workflows/common/messages';
import type { EventHint, RampEventInput, RampEventTimings } from '../workflows/ramp-event/events';

/** Event names are short identifiers (CUSTOMER_APPROVED, user.approved); anything else is not a delivery. */
const EVENT_NAME = /^[A-Za-z0-9._-]{1,64}$/;
/**
 * The service's ids are UUIDs; we accept up to 200 visible ASCII characters so the workflow ID stays
 * well inside Temporal's limits and free of control characters.
 */
const PAYLOAD_ID = /^[\x21-\x7E]{1,200}$/;

const EnvelopeSchema = z.looseObject({
  event: z.string().regex(EVENT_NAME),
  payload: z.looseObject({ id: z.string().regex(PAYLOAD_ID) }),
});

/** Hint values are compared, not stored for their own sake: a few hundred bytes at most. */
const HINT_MAX_CHARS = 128;

export type ParsedDelivery =
  | {
      ok: true;
      workflowId: string;
      input: RampEventInput;
      /** Paths of payload fields that do not match our schema of the event's resource (never their values); empty when all match. */
      mismatchedFields: string[];
      /**
       * The payload as parsed against its resource's schema, for direct routing (webhooks/direct-route.ts);
       * undefined when it did not match or the event is unknown. Never logged, never handed to a workflow.
       */
      matchedPayload: unknown;
    }
  | { ok: false; reason: string; /** Paths of the offending fields (never their values). */ fields: string[] };

function fieldsOf(error: z.ZodError): string[] {
  return error.issues.map((issue) => issue.path.map(String).join('.') || '(body)').slice(0, 10);
}

function clip(value: unknown): string | undefined {
  return typeof value === 'string' ? value.slice(0, HINT_MAX_CHARS) : undefined;
}

function definedOnly(hint: Record<string, string | undefined>): EventHint {
  return Object.fromEntries(Object.entries(hint).filter(([, value]) => value !== undefined));
}

function idOf(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined;
}

function hintOf(event: EventName, payload: Record<string, unknown>): EventHint {
  const status = clip(payload.status);
  switch (EVENT_RESOURCE[event]) {
    case 'customer':
      return definedOnly({ status, externalId: clip(payload.externalId) });
    case 'virtualAccount':
    case 'depositAddress':
    case 'deposit':
      return definedOnly({ status, customerId: clip(payload.customerId) });
    case 'trade':
      return definedOnly({ status, depositId: clip(idOf(payload.deposit)) });
    case 'payment':
      return definedOnly({ status, reference: clip(payload.reference) });
  }
}

export function parseDelivery(body: unknown, timings?: Partial<RampEventTimings>): ParsedDelivery {
  const envelope = EnvelopeSchema.safeParse(body);
  if (!envelope.success)
    return {
      ok: false,
      reason: 'malformed envelope: expected {event, payload: {id}}',
      fields: fieldsOf(envelope.error),
    };
  const deliveredAs = envelope.data.event;
  const payloadId = envelope.data.payload.id;
  const event = normaliseEventName(deliveredAs);
  const timed = timings ? { timings } : {};

  if (event === undefined) {
    return {
      ok: true,
      workflowId: eventWorkflowId(deliveredAs, payloadId),
      input: { event: deliveredAs, payloadId, key: `${deliveredAs}/${payloadId}`, hint: {}, ...timed },
      mismatchedFields: [],
      matchedPayload: undefined,
    };
  }
  const payload = eventPayloadSchema(event).safeParse(envelope.data.payload);
  return {
    ok: true,
    workflowId: eventWorkflowId(event, payloadId),
    input: {
      event,
      ...(deliveredAs !== event ? { deliveredAs } : {}),
      payloadId,
      key: eventKey(event, payloadId),
      resource: EVENT_RESOURCE[event],
      // From the payload as delivered: hintOf keeps only strings, so a mistyped field is simply no hint.
      hint: hintOf(event, envelope.data.payload),
      ...timed,
    },
    mismatchedFields: payload.success ? [] : fieldsOf(payload.error),
    matchedPayload: payload.success ? payload.data : undefined,
  };
}
