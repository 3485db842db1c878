/**
 * The ramp-event workflow's data, pure (workflows/ramp-event/workflow.ts): what the webhook receiver
 * hands to it, what the routing activity answers, where each route leads, what the workflow ends with,
 * and what each event claims.
 *
 * Kept small on purpose: all of it lands in workflow histories, so it carries the event's name, the
 * payload's id and a compact hint, never the payload itself (which may hold kycLinks, names and
 * account numbers).
 *
 * The service's webhooks are unsigned, so a delivery is only a hint: the router signals a target only
 * once the service's record shows what the event claims (or something later), so a spoofed "deposit
 * approved" for a deposit the service has not confirmed moves nothing. A record already further along
 * (a customer approved and since deleted) still confirms the earlier claim.
 */
import type { EventName } from '../../ramp/events';
import { depositWorkflowId, journeyWorkflowId, payoutWorkflowId } from '../common/messages';
import {
  type CustomerRecord,
  type DepositAddressRecord,
  type DepositRecord,
  isAccountApproved,
  isAccountRejected,
  isCustomerApproved,
  isPaymentSettled,
  type PaymentRecord,
  type TradeRecord,
  type VirtualAccountRecord,
} from '../common/records';

/** Which detail resource an event's payload is (mirrors ramp/events.ts EVENT_RESOURCE). */
export type EventResource = 'customer' | 'virtualAccount' | 'depositAddress' | 'deposit' | 'trade' | 'payment';

/**
 * What the delivered payload claimed, kept only to compare with the service's own record. Every
 * field is an id or a status: nothing secret, nothing personal.
 */
export interface EventHint {
  status?: string;
  customerId?: string;
  externalId?: string;
  depositId?: string;
  reference?: string;
}

/** How long an event waits for its target (a journey or deposit workflow) to appear, and how often it looks. */
export interface RampEventTimings {
  /** Total time to wait for the target workflow, or for the service to confirm what the event says. */
  targetWaitSeconds: number;
  /** First pause between attempts; doubles up to maxRetrySeconds. */
  firstRetrySeconds: number;
  maxRetrySeconds: number;
  /**
   * How long a record the service does not have is given to appear (one more look after this pause)
   * before the event is dismissed: a delivery about a record the service does not have parks nothing
   * (workflows/common/trust.ts).
   */
  notFoundGraceSeconds: number;
}

/**
 * Production defaults: an hour covers a journey that starts its deposit's workflow a little after the
 * trade's event arrives, and a service whose reads lag its webhooks. The first look again comes after
 * a second, because the usual miss is a deposit workflow that the journey is starting that very moment
 * (a fast service sends the trade's event right behind the deposit's). Tests pass seconds.
 */
export const DEFAULT_RAMP_EVENT_TIMINGS: RampEventTimings = {
  targetWaitSeconds: 60 * 60,
  firstRetrySeconds: 1,
  maxRetrySeconds: 10 * 60,
  notFoundGraceSeconds: 60,
};

export interface RampEventInput {
  /** The new-format event name, or the name as delivered when we do not know it. */
  event: string;
  /** The older name it was delivered under (user.approved, ...), when it was. */
  deliveredAs?: string;
  payloadId: string;
  /** `EVENT/payload.id`, the key targets apply at most once (ramp/events.ts eventKey). */
  key: string;
  /** Undefined for an event name we do not know: such an event is parked for operators. */
  resource?: EventResource;
  hint: EventHint;
  timings?: Partial<RampEventTimings>;
}

/** Where the service's record says the event belongs. */
export type EventRoute =
  | { signal: 'customer'; externalId: string; record: CustomerRecord }
  | { signal: 'virtualAccount'; externalId: string; customerId: string; record: VirtualAccountRecord }
  | { signal: 'depositAddress'; externalId: string; customerId: string; record: DepositAddressRecord }
  /** No externalId: the customer has none; the deposit's workflow still starts, and parks. */
  | { signal: 'deposit'; externalId?: string; customerId: string; record: DepositRecord }
  | { signal: 'trade'; depositId: string; record: TradeRecord }
  | { signal: 'payment'; depositId: string; tradeId: string; record: PaymentRecord }
  /** A payout from the partner's balance (`payout/<reference>`), whose reference names no trade. */
  | { signal: 'payout'; reference: string; record: PaymentRecord };

/** Why an event ended without reaching a target. */
export type ParkCode =
  /** An event name we do not know. */
  | 'UNKNOWN_EVENT'
  /** The service has no such record (a spoof, another partner's id, or a record since removed). */
  | 'RECORD_NOT_FOUND'
  /** The service's record does not show what the event says happened (for example a deposit it has not confirmed). */
  | 'DISPUTED'
  /** The record belongs to a customer without an externalId, so to no journey of ours. */
  | 'NOT_OURS'
  /** A payment whose reference names no trade: it cannot be tied to a deposit. */
  | 'AMBIGUOUS'
  /** The target workflow never appeared within the wait. */
  | 'NO_TARGET'
  /** The service kept failing or refused our credentials. */
  | 'SERVICE_ERROR';

export type EventResolution =
  | { kind: 'routed'; status: string; route: EventRoute }
  | { kind: 'record-not-found' }
  | { kind: 'unroutable'; code: 'NOT_OURS' | 'AMBIGUOUS'; reason: string; customerId?: string };

export type TargetWorkflowState = 'RUNNING' | 'CLOSED' | 'NOT_FOUND';

export interface RampEventResult {
  /**
   * ROUTED: signalled; TARGET_CLOSED: the target had already finished (nothing left to move); PARKED:
   * see parkCode; DISMISSED: the service has no such record (a forged or made-up delivery), counted
   * and ended with nothing left waiting.
   */
  outcome: 'ROUTED' | 'TARGET_CLOSED' | 'PARKED' | 'DISMISSED';
  event: string;
  payloadId: string;
  target?: string;
  /** The status the service reported, which is what the target received. */
  serviceStatus?: string;
  /** Hint fields the payload got wrong compared with the service's record. */
  hintDisagreed?: string[];
  parkCode?: ParkCode;
  reason?: string;
}

/**
 * Values of the RampStage search attribute on ramp-event workflows. Operators list parked events with
 * `WorkflowType = 'rampEvent' AND RampStage = 'EVENT_UNROUTED'`.
 */
export const EVENT_STAGE = {
  RECEIVED: 'EVENT_RECEIVED',
  WAITING: 'EVENT_WAITING',
  ROUTED: 'EVENT_ROUTED',
  TARGET_CLOSED: 'EVENT_TARGET_CLOSED',
  UNROUTED: 'EVENT_UNROUTED',
  /** The service has no record of what the delivery named: ended, counted, nothing parked. */
  DISMISSED: 'EVENT_DISMISSED',
} as const;

/** The workflow ID of the event's target: its deposit, its payout, or its customer's journey. */
export function targetOf(route: EventRoute): string {
  switch (route.signal) {
    case 'trade':
    case 'payment':
      return depositWorkflowId(route.depositId);
    case 'deposit':
      return depositWorkflowId(route.record.id);
    case 'payout':
      return payoutWorkflowId(route.reference);
    default:
      return journeyWorkflowId(route.externalId);
  }
}

const anyStatus = (): boolean => true;

const CLAIMS: Record<EventName, (status: string) => boolean> = {
  CUSTOMER_APPROVED: (status) => isCustomerApproved(status) || status === 'DELETED',
  CUSTOMER_REJECTED: (status) => status === 'REJECTED' || status === 'DELETED',
  CUSTOMER_DELETED: (status) => status === 'DELETED',
  VIRTUAL_ACCOUNT_APPROVED: isAccountApproved,
  VIRTUAL_ACCOUNT_REJECTED: isAccountRejected,
  DEPOSIT_ADDRESS_APPROVED: isAccountApproved,
  DEPOSIT_ADDRESS_REJECTED: isAccountRejected,
  // "Received" and "created" claim only that the record exists, which the re-read has shown.
  DEPOSIT_RECEIVED: anyStatus,
  DEPOSIT_APPROVED: (status) => status === 'CONFIRMED',
  DEPOSIT_REJECTED: (status) => status === 'REJECTED',
  TRADE_CREATED: anyStatus,
  TRADE_SETTLED: (status) => status === 'SETTLED',
  PAYMENT_SETTLED: isPaymentSettled,
};

/** Whether the service's status confirms what `event` says happened. */
export function serviceConfirms(event: EventName, status: string): boolean {
  return CLAIMS[event](status);
}

/** The hint fields the delivered payload got wrong, compared with the service's record. */
export function hintDisagreements(hint: EventHint, status: string, route: EventRoute): string[] {
  const actual: EventHint = { status };
  if (route.signal === 'customer') actual.externalId = route.externalId;
  if (route.signal === 'virtualAccount' || route.signal === 'depositAddress' || route.signal === 'deposit')
    actual.customerId = route.customerId;
  if (route.signal === 'trade') actual.depositId = route.depositId;
  if (route.signal === 'payment') actual.reference = route.tradeId;
  return (Object.keys(hint) as (keyof EventHint)[]).filter(
    (field) => actual[field] !== undefined && hint[field] !== actual[field],
  );
}
