/**
 * Event envelope and payloads (interface: "Events"). A delivery is `POST {event, payload}`; the
 * payload has the schema of the matching detail endpoint's `data` (release 2026-03-22).
 */
import { z } from 'zod';
import { EVENT_RESOURCE, normaliseEventName, type EventName } from '../events';
import { Identifier } from './common';
import { CustomerSchema } from './customer';
import { DepositSchema } from './deposit';
import { DepositAddressSchema } from './deposit-address';
import { PaymentSchema } from './payment';
import { TradeSchema } from './trade';
import { VirtualAccountSchema } from './virtual-account';

/**
 * The envelope alone. `event` stays a string (older names arrive too; see normaliseEventName) and
 * the payload needs only the `id` of the de-duplication key; parseEventPayload checks the rest.
 */
export const EventEnvelopeSchema = z.looseObject({
  event: z.string().min(1),
  payload: z.looseObject({ id: Identifier }),
});

export const RESOURCE_SCHEMAS = {
  customer: CustomerSchema,
  virtualAccount: VirtualAccountSchema,
  depositAddress: DepositAddressSchema,
  deposit: DepositSchema,
  trade: TradeSchema,
  payment: PaymentSchema,
} as const;

type ResourceName = keyof typeof RESOURCE_SCHEMAS;
type ResourceOf<E extends EventName> = (typeof EVENT_RESOURCE)[E] extends infer R extends ResourceName
  ? z.infer<(typeof RESOURCE_SCHEMAS)[R]>
  : never;

/** The payload schema of one event, keyed by new-format name. */
export function eventPayloadSchema(event: EventName): (typeof RESOURCE_SCHEMAS)[ResourceName] {
  return RESOURCE_SCHEMAS[EVENT_RESOURCE[event]];
}

export type RampEvent =
  | {
      event: 'CUSTOMER_APPROVED' | 'CUSTOMER_REJECTED' | 'CUSTOMER_DELETED';
      resource: 'customer';
      payload: ResourceOf<'CUSTOMER_APPROVED'>;
    }
  | {
      event: 'VIRTUAL_ACCOUNT_APPROVED' | 'VIRTUAL_ACCOUNT_REJECTED';
      resource: 'virtualAccount';
      payload: ResourceOf<'VIRTUAL_ACCOUNT_APPROVED'>;
    }
  | {
      event: 'DEPOSIT_ADDRESS_APPROVED' | 'DEPOSIT_ADDRESS_REJECTED';
      resource: 'depositAddress';
      payload: ResourceOf<'DEPOSIT_ADDRESS_APPROVED'>;
    }
  | {
      event: 'DEPOSIT_RECEIVED' | 'DEPOSIT_APPROVED' | 'DEPOSIT_REJECTED';
      resource: 'deposit';
      payload: ResourceOf<'DEPOSIT_RECEIVED'>;
    }
  | { event: 'TRADE_CREATED' | 'TRADE_SETTLED'; resource: 'trade'; payload: ResourceOf<'TRADE_CREATED'> }
  | { event: 'PAYMENT_SETTLED'; resource: 'payment'; payload: ResourceOf<'PAYMENT_SETTLED'> };

export type EventParseResult = { success: true; value: RampEvent } | { success: false; reason: string };

/**
 * Validates a delivered body: envelope, known event name (old names mapped to new), and the payload
 * against its resource's schema. Never throws; the reason names the field that failed.
 */
export function parseRampEvent(body: unknown): EventParseResult {
  const envelope = EventEnvelopeSchema.safeParse(body);
  if (!envelope.success) return { success: false, reason: `event envelope: ${z.prettifyError(envelope.error)}` };
  const event = normaliseEventName(envelope.data.event);
  if (event === undefined) return { success: false, reason: `unknown event name "${envelope.data.event}"` };
  const payload = eventPayloadSchema(event).safeParse(envelope.data.payload);
  if (!payload.success) return { success: false, reason: `${event} payload: ${z.prettifyError(payload.error)}` };
  // The payload was checked with the schema EVENT_RESOURCE names for this event, which is exactly the
  // pairing RampEvent spells out; TypeScript cannot follow a lookup table, hence the assertion.
  return { success: true, value: { event, resource: EVENT_RESOURCE[event], payload: payload.data } as RampEvent };
}
