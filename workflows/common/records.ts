/**
 * The service's records as workflows keep them, the order their statuses move in (forward only), and
 * the window of event keys applied (each event at most once).
 */
import type { EventName } from '../../ramp/events';

/**
 * The slices of the service's records that workflows keep and that travel in signals. Activities and
 * the event router build them from the service's authoritative records, so workflow histories hold
 * what the journey needs and nothing else (no secrets, no full payloads).
 */
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
  /** When the service created the trade (its `createTime`, epoch milliseconds), when it reads as a time. */
  createdAt?: number;
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

/**
 * Forward-only status changes. Events can arrive late or out of order (a DEPOSIT_RECEIVED after
 * DEPOSIT_APPROVED); a record is applied only when its status is at least as far along as the one
 * the workflow already holds. Final states never move.
 */

const CUSTOMER_RANK: Record<string, number> = {
  CREATED: 0,
  PENDING: 1,
  APPROVED: 2,
  CONFIRMED: 2,
  REJECTED: 2,
  DELETED: 3,
};
const ACCOUNT_RANK: Record<string, number> = {
  PENDING: 0,
  CREATED: 0,
  VERIFIED: 1,
  APPROVED: 1,
  ENABLED: 1,
  ACTIVE: 1,
  REJECTED: 1,
};
const DEPOSIT_RANK: Record<string, number> = { RECEIVED: 0, ACTION_REQUIRED: 1, CONFIRMED: 2, REJECTED: 2 };
const TRADE_RANK: Record<string, number> = { CREATED: 0, PENDING: 0, SETTLED: 1, FAILED: 1 };

function advances(ranks: Record<string, number>, held: string | undefined, incoming: string): boolean {
  if (held === undefined) return true;
  const heldRank = ranks[held] ?? -1;
  const incomingRank = ranks[incoming] ?? -1;
  // Equal rank may refresh details (a kycLink, account numbers) but not swap one final state for another.
  return incomingRank > heldRank || (incomingRank === heldRank && incoming === held);
}

export const advancesCustomer = (held: string | undefined, incoming: string) => advances(CUSTOMER_RANK, held, incoming);
export const advancesAccount = (held: string | undefined, incoming: string) => advances(ACCOUNT_RANK, held, incoming);
export const advancesDeposit = (held: string | undefined, incoming: string) => advances(DEPOSIT_RANK, held, incoming);
export const advancesTrade = (held: string | undefined, incoming: string) => advances(TRADE_RANK, held, incoming);

/** Virtual accounts say VERIFIED; the interface does not show deposit-address statuses, so we accept the usual words. */
export const isAccountApproved = (status: string): boolean =>
  ['VERIFIED', 'APPROVED', 'ENABLED', 'ACTIVE'].includes(status);
export const isAccountRejected = (status: string): boolean => status === 'REJECTED';

/**
 * The event keys a workflow has applied, for applying each event at most once. Bounded: state only
 * moves forward (workflows/common/records.ts), so an event older than the window that is delivered again
 * can move nothing; the window only saves repeating work for the usual redeliveries, which come
 * within days and a handful of events.
 */
export const APPLIED_KEYS_WINDOW = 200;

export class AppliedKeys {
  private readonly keys: string[];
  private readonly set: Set<string>;

  constructor(
    carried: readonly string[] = [],
    private readonly window = APPLIED_KEYS_WINDOW,
  ) {
    this.keys = carried.slice(-window);
    this.set = new Set(this.keys);
  }

  /** Runs `apply` unless `key` was applied already (within the window). */
  applyOnce(key: string, apply: () => void): void {
    if (this.set.has(key)) return;
    this.keys.push(key);
    this.set.add(key);
    if (this.keys.length > this.window) this.set.delete(this.keys.shift()!);
    apply();
  }

  /** What a continued run carries, oldest first. */
  carry(): string[] {
    return [...this.keys];
  }
}
