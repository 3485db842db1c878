/**
 * The slices of the service's records that workflows keep and that travel in signals. Activities and
 * the event router build them from the service's authoritative records, so workflow histories hold
 * what the journey needs and nothing else (no secrets, no full payloads).
 */
import type { EventName } from '../../ramp/events';

export interface CustomerRecord {
  id: string;
  /** CREATED, PENDING, APPROVED (or CONFIRMED), REJECTED, DELETED. */
  status: string;
  externalId?: string;
  kycLink?: string;
}

export interface VirtualAccountRecord {
  id: string;
  /** PENDING, VERIFIED, REJECTED. */
  status: string;
  currency?: string;
  accountNumber?: string;
  bicSwift?: string;
  payId?: string;
  bankName?: string;
}

export interface DepositAddressRecord {
  id: string;
  status: string;
  address?: string;
  network?: string;
  currency?: string;
}

export interface WhitelistEntryRecord {
  bsbNumber: string;
  accountNumber: string;
  accountStatus?: string;
}

export interface DepositRecord {
  id: string;
  customerId: string;
  /** RECEIVED, CONFIRMED, ACTION_REQUIRED, REJECTED. */
  status: string;
  amount: string;
  currency: string;
  /** The entry the money arrived at: a virtual account (onramp) or a deposit address (offramp). */
  virtualAccountId?: string;
  depositAddressId?: string;
}

export interface TradeRecord {
  id: string;
  status: string;
  depositId?: string;
  fromAmount: string;
  fromCurrency: string;
  toAmount: string;
  toCurrency: string;
  /** Where the service names the payment a settled offramp trade paid out with (see activities). */
  paymentId?: string;
}

export interface PaymentRecord {
  id: string;
  status: string;
  reference?: string;
  receivedAmount?: string;
  receivedCurrency?: string;
  /** Why the service failed the payment, in its words, when it says (see `isPaymentFailed`). */
  failureReason?: string;
}

/** One service event as a workflow receives it: the key it is applied under and the re-read record. */
export interface RampEvent<R> {
  /** `EVENT/payload.id`: a target applies each key at most once. */
  key: string;
  event: EventName;
  record: R;
  /**
   * Set when `record` is the webhook's payload (the receiver routed the event directly) rather than
   * the service's record read through the signed API: a deposit does not end on such a record alone.
   */
  fromPayload?: true;
}

/** The service's crypto currencies (the interface's crypto-address filter values): money in them is an offramp. */
const CRYPTO_CURRENCIES = ['USDT', 'USDC'];

/** Where the money came in: a virtual account is an onramp, a deposit address an offramp. */
export function depositKindOf(deposit: DepositRecord): 'ONRAMP' | 'OFFRAMP' {
  if (deposit.virtualAccountId) return 'ONRAMP';
  if (deposit.depositAddressId) return 'OFFRAMP';
  return CRYPTO_CURRENCIES.includes(deposit.currency) ? 'OFFRAMP' : 'ONRAMP';
}

export const isCustomerApproved = (status: string): boolean => status === 'APPROVED' || status === 'CONFIRMED';
export const isPaymentSettled = (status: string): boolean => ['CONFIRMED', 'SETTLED', 'COMPLETED'].includes(status);
/**
 * A payment the service gave up on: the money did not reach the bank account and never will under
 * this payment. The interface shows only CONFIRMED; these are the failure statuses such services use
 * (and the sandbox's FAILED), with the reason in an assumed `failureReason` field when the service
 * gives one. Any other status (PENDING, PROCESSING, ...) is still under way.
 */
export const isPaymentFailed = (status: string): boolean =>
  ['FAILED', 'REJECTED', 'REFUNDED', 'RETURNED', 'CANCELLED'].includes(status);
