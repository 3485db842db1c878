/**
 * What each event says happened, checked against the service's own record. The service's webhooks
 * are unsigned, so a delivery is only a hint: the router signals a target only once the service's
 * record shows what the event claims (or something later), so a spoofed "deposit approved" for a
 * deposit the service has not confirmed moves nothing. A record already further along (a customer
 * approved and since deleted) still confirms the earlier claim.
 */
import type { EventName } from '../../ramp/events';
import type { EventHint, EventRoute } from './types';
import { isCustomerApproved, isPaymentSettled } from '../common/records';
import { isAccountApproved, isAccountRejected } from '../common/status-order';

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
