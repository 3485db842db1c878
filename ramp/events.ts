/**
 * Event names of the partner ramp service (interface: "Events").
 *
 * The service delivers `POST {event, payload}`; the de-duplication key is the event plus `payload.id`.
 * Subscriptions also accept the older names; we map each to its new name so that one event delivered
 * under both names counts once. The interface does not give the mapping, so it is our assumption,
 * made from the names' meanings.
 */

export const EVENT_NAMES = [
  'CUSTOMER_APPROVED',
  'CUSTOMER_REJECTED',
  'CUSTOMER_DELETED',
  'VIRTUAL_ACCOUNT_APPROVED',
  'VIRTUAL_ACCOUNT_REJECTED',
  'DEPOSIT_ADDRESS_APPROVED',
  'DEPOSIT_ADDRESS_REJECTED',
  'DEPOSIT_RECEIVED',
  'DEPOSIT_APPROVED',
  'DEPOSIT_REJECTED',
  'TRADE_CREATED',
  'TRADE_SETTLED',
  'PAYMENT_SETTLED',
] as const;

export type EventName = (typeof EVENT_NAMES)[number];

/** Older-generation names the subscription list accepts, and the new name each one means. */
export const LEGACY_EVENT_NAMES = {
  'user.approved': 'CUSTOMER_APPROVED',
  'user.rejected': 'CUSTOMER_REJECTED',
  'va.approved': 'VIRTUAL_ACCOUNT_APPROVED',
  'va.rejected': 'VIRTUAL_ACCOUNT_REJECTED',
  'deposit.received': 'DEPOSIT_RECEIVED',
  'deposit.approved': 'DEPOSIT_APPROVED',
  'deposit.rejected': 'DEPOSIT_REJECTED',
  'trade.created': 'TRADE_CREATED',
  'trade.settled': 'TRADE_SETTLED',
} as const satisfies Record<string, EventName>;

/** Every name POST /subscribed-events accepts. */
export const SUBSCRIBABLE_EVENT_NAMES: readonly string[] = [...EVENT_NAMES, ...Object.keys(LEGACY_EVENT_NAMES)];

/** The new-format name of an event delivered under either name, or undefined for a name we do not know. */
export function normaliseEventName(name: string): EventName | undefined {
  if ((EVENT_NAMES as readonly string[]).includes(name)) return name as EventName;
  return (LEGACY_EVENT_NAMES as Record<string, EventName>)[name];
}

/** The de-duplication key of a delivered event: its new-format name and the payload's id. */
export function eventKey(event: EventName, payloadId: string): string {
  return `${event}/${payloadId}`;
}

/** Which detail resource an event's payload carries. */
export const EVENT_RESOURCE: Record<
  EventName,
  'customer' | 'virtualAccount' | 'depositAddress' | 'deposit' | 'trade' | 'payment'
> = {
  CUSTOMER_APPROVED: 'customer',
  CUSTOMER_REJECTED: 'customer',
  CUSTOMER_DELETED: 'customer',
  VIRTUAL_ACCOUNT_APPROVED: 'virtualAccount',
  VIRTUAL_ACCOUNT_REJECTED: 'virtualAccount',
  DEPOSIT_ADDRESS_APPROVED: 'depositAddress',
  DEPOSIT_ADDRESS_REJECTED: 'depositAddress',
  DEPOSIT_RECEIVED: 'deposit',
  DEPOSIT_APPROVED: 'deposit',
  DEPOSIT_REJECTED: 'deposit',
  TRADE_CREATED: 'trade',
  TRADE_SETTLED: 'trade',
  PAYMENT_SETTLED: 'payment',
};
