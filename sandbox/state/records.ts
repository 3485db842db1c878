/**
 * What the sandbox stores. Times are virtual-clock milliseconds; views.ts turns records into the
 * response shapes. Every record carries the partner it belongs to, and nothing is ever looked up
 * without it (interface: "Every record is scoped to the authenticated partner").
 */
import type { Scaled } from '../decimal';
import type { Currency, CryptoCurrency, FiatCurrency, Network } from '../currencies';

interface Owned {
  id: string;
  partnerId: string;
  createTime: number;
  updateTime: number;
}

export type CustomerStatus = 'CREATED' | 'PENDING' | 'APPROVED' | 'REJECTED' | 'DELETED';

export interface CustomerRecord extends Owned {
  realName: string | null;
  email: string | null;
  externalId: string | null;
  status: CustomerStatus;
}

export interface BankAccountRecord extends Owned {
  customerId: string;
  currency: FiatCurrency;
  bankName: string;
  accountNo: string;
  swift: string;
  beneficiaryName: string;
  beneficiaryAddress: string;
  bankCountry: string;
  bankAddress: string;
}

export interface CryptoAddressRecord extends Owned {
  customerId: string;
  currency: CryptoCurrency;
  address: string;
  label: string;
  network: Network;
}

/** A sending bank account as an AUD whitelist entry knows it. */
export interface SourceAccount {
  bsbNumber: string;
  accountNumber: string;
  accountName: string | null;
}

export type WhitelistEntryStatus = 'pending' | 'active';

export interface WhitelistEntry extends SourceAccount {
  /** The interface shows integer ids for whitelist entries. */
  id: number;
  accountStatus: WhitelistEntryStatus;
}

export type VirtualAccountStatus = 'PENDING' | 'VERIFIED' | 'REJECTED';

export interface VirtualAccountRecord extends Owned {
  customerId: string;
  currency: FiatCurrency;
  status: VirtualAccountStatus;
  /** Banking details are issued when the provider confirms the account. */
  accountNumber: string | null;
  bsbNumber: string | null;
  payId: string | null;
  /** The `whitelist` object of the create request (AUD only), registered after approval. */
  requestedWhitelist: SourceAccount | null;
  whitelist: WhitelistEntry[];
}

export type DepositAddressStatus = 'PENDING' | 'APPROVED' | 'REJECTED';

export interface DepositAddressRecord extends Owned {
  customerId: string;
  currency: CryptoCurrency;
  network: Network;
  address: string;
  status: DepositAddressStatus;
}

export type DepositStatus = 'RECEIVED' | 'CONFIRMED' | 'ACTION_REQUIRED' | 'REJECTED';

export type DepositSender =
  | { kind: 'BANK'; bsbNumber: string | null; accountNumber: string; accountName: string | null }
  | { kind: 'CRYPTO'; address: string; network: Network };

export interface DepositRecord extends Owned {
  customerId: string;
  type: 'FIAT' | 'CRYPTO';
  currency: Currency;
  amount: Scaled;
  sender: DepositSender;
  virtualAccountId: string | null;
  depositAddressId: string | null;
  txid: string;
  txReference: string;
  status: DepositStatus;
  /** Names of files submitted with POST /deposit/submitAttachmentFile. */
  attachments: string[];
}

export type FlowType = 'ONRAMP' | 'OFFRAMP';

export interface AutorampFlowRecord extends Owned {
  customerId: string;
  type: FlowType;
  /** Entry: a virtual account id (ONRAMP) or a deposit address id (OFFRAMP). */
  from: string;
  /** Exit: a crypto address id (ONRAMP) or a bank account id (OFFRAMP). */
  to: string;
  status: 'ENABLED' | 'DISABLED';
}

export type TradeStatus = 'PENDING' | 'SETTLED';

export interface TradeRecord extends Owned {
  customerId: string;
  flowId: string;
  depositId: string;
  fromCurrency: Currency;
  fromAmount: Scaled;
  toCurrency: Currency;
  toAmount: Scaled;
  rate: Scaled;
  status: TradeStatus;
  /** The payment an offramp trade paid out with, once it exists (see the trade view). */
  paymentId: string | null;
}

/** FAILED: the bank or the service gave up on a PENDING payment (rampflow reads it as workflows/common/records.ts `isPaymentFailed` says). */
export type PaymentStatus = 'PENDING' | 'CONFIRMED' | 'FAILED';

/**
 * A payment to a customer's bank account: an offramp trade's payout (`tradeId`, deducted in the bank
 * account's currency) or a payout from the partner's balance (POST /payment/create: `tradeId` null,
 * deducted in a stablecoin and converted).
 */
export interface PaymentRecord extends Owned {
  customerId: string;
  tradeId: string | null;
  /** What the payment list and the record show as `reference`: the trade id, or the partner's own reference. */
  reference: string;
  bankAccountId: string;
  /** The bank account's currency, which the customer receives. */
  currency: FiatCurrency;
  deductCurrency: Currency;
  deductAmount: Scaled;
  /** Units of `currency` per unit of `deductCurrency`. */
  rate: Scaled;
  receivedAmount: Scaled;
  bankCharge: Scaled;
  status: PaymentStatus;
  /** Why a FAILED payment failed, in the service's words (shown as `failureReason`). */
  failureReason?: string;
}

export interface PartnerRecord {
  id: string;
  ipWhiteList: string[];
  callbackUrl: string | null;
  subscribedEvents: string[];
  balances: Map<Currency, Scaled>;
  /** The older generation's GET /deposit-address: one shared address per `CURRENCY/NETWORK`, made on first ask. */
  sharedDepositAddresses: Map<string, string>;
}

/** An entry of the older generation's withdrawal whitelist (/create-whitelist). */
export interface LegacyWhitelistRecord extends Owned {
  userId: string;
  address: string;
  network: Network;
  label: string;
}
