/** From the service's records to the slices workflows keep (workflows/common/records.ts). */
import type {
  AudWhitelistEntry,
  Customer,
  Deposit,
  DepositAddress,
  DepositListItem,
  Payment,
  Trade,
  VirtualAccount,
} from '../ramp';
import type {
  CustomerRecord,
  DepositAddressRecord,
  DepositRecord,
  PaymentRecord,
  TradeRecord,
  VirtualAccountRecord,
  WhitelistEntryRecord,
} from '../workflows/common/records';
import { timeOf } from './list-search';

/** Copies the named string fields that are present, leaving absent and null ones out. */
function strings<K extends string>(source: Record<string, unknown>, keys: readonly K[]): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const key of keys) {
    const value = source[key];
    if (typeof value === 'string') out[key] = value;
  }
  return out;
}

export function customerRecord(customer: Customer): CustomerRecord {
  return { id: customer.id, status: customer.status, ...strings(customer, ['externalId', 'kycLink'] as const) };
}

export function virtualAccountRecord(account: VirtualAccount): VirtualAccountRecord {
  return {
    id: account.id,
    status: account.status,
    ...strings(account, ['currency', 'accountNumber', 'bicSwift', 'payId', 'bankName'] as const),
  };
}

/** Deposit-address statuses are not shown; an address without one has not been approved yet. */
export function depositAddressRecord(address: DepositAddress): DepositAddressRecord {
  return {
    id: address.id,
    status: address.status ?? 'PENDING',
    ...strings(address, ['address', 'network', 'currency'] as const),
  };
}

export function depositRecord(deposit: Deposit | DepositListItem): DepositRecord {
  const detail = deposit as Partial<Deposit>;
  return {
    id: deposit.id,
    customerId: deposit.customerId,
    status: deposit.status,
    amount: deposit.amount,
    currency: deposit.currency,
    ...(detail.receiverVirtualAccount?.id ? { virtualAccountId: detail.receiverVirtualAccount.id } : {}),
    ...(detail.receiverDepositAddress?.id ? { depositAddressId: String(detail.receiverDepositAddress.id) } : {}),
  };
}

/**
 * The interface shows no link from a trade to the payment that paid it out, and no list of payments;
 * without one a lost PAYMENT_SETTLED could never be found by polling. We read `paymentId` when the
 * trade carries it (the sandbox does, once the payment exists), and otherwise rely on the event.
 */
export function tradeRecord(trade: Trade): TradeRecord {
  const extra = trade as Record<string, unknown>;
  const createdAt = timeOf(trade.createTime);
  return {
    id: trade.id,
    status: trade.status,
    depositId: trade.deposit.id,
    fromAmount: trade.fromAmount,
    fromCurrency: trade.fromCurrency,
    toAmount: trade.toAmount,
    toCurrency: trade.toCurrency,
    ...(typeof extra.paymentId === 'string' ? { paymentId: extra.paymentId } : {}),
    ...(createdAt !== undefined ? { createdAt } : {}),
  };
}

/** A failure reason is the service's free text: kept to this many characters, so every payload stays bounded. */
const FAILURE_REASON_MAX_CHARS = 200;

export function paymentRecord(payment: Payment): PaymentRecord {
  const { failureReason, ...rest } = strings(payment, [
    'reference',
    'receivedAmount',
    'receivedCurrency',
    'failureReason',
  ] as const);
  return {
    id: payment.id,
    status: payment.status,
    ...rest,
    ...(failureReason ? { failureReason: failureReason.slice(0, FAILURE_REASON_MAX_CHARS) } : {}),
  };
}

export function whitelistEntryRecord(entry: AudWhitelistEntry): WhitelistEntryRecord {
  return { bsbNumber: entry.bsbNumber, accountNumber: entry.accountNumber, accountStatus: entry.accountStatus };
}
