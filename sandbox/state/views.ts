/**
 * Records as the service shows them: the `data` of detail endpoints, list items, and event payloads
 * (interface: "payload has the same schema as the data of the matching detail endpoint").
 * Fields the interface lists come first under its names; the few extra fields (`createTime`,
 * `updateTime`, ids linking records) are the kind the interface marks "further fields: not shown".
 * Absent optional values are sent as null rather than left out, as JSON APIs of this kind do.
 */
import { formatAmount, formatRate } from '../currencies';
import { isoTime, paymentTime } from '../time-format';
import type {
  AutorampFlowRecord,
  BankAccountRecord,
  CryptoAddressRecord,
  CustomerRecord,
  DepositAddressRecord,
  DepositRecord,
  PaymentRecord,
  TradeRecord,
  VirtualAccountRecord,
  WhitelistEntry,
} from './records';
import type { SandboxStore } from './store';

/** The sandbox's banking provider, as virtual accounts and bank details show it. */
export const SANDBOX_BANK_NAME = 'Sandbox Bank';
export const SANDBOX_BIC = 'SBXBAU2S';

export class Views {
  constructor(
    private readonly store: SandboxStore,
    /** Where the hosted KYC page of a customer lives (the sandbox serves it itself). */
    private readonly kycLinkOf: (customerId: string) => string,
  ) {}

  customer(record: CustomerRecord) {
    return {
      id: record.id,
      realName: record.realName,
      email: record.email,
      externalId: record.externalId,
      kycLink: this.kycLinkOf(record.id),
      status: record.status,
      createTime: isoTime(record.createTime),
      updateTime: isoTime(record.updateTime),
    };
  }

  bankAccount(record: BankAccountRecord) {
    return {
      id: record.id,
      customerId: record.customerId,
      currency: record.currency,
      bankName: record.bankName,
      accountNo: record.accountNo,
      swift: record.swift,
      createTime: isoTime(record.createTime),
      updateTime: isoTime(record.updateTime),
    };
  }

  cryptoAddress(record: CryptoAddressRecord) {
    return {
      id: record.id,
      customerId: record.customerId,
      currency: record.currency,
      address: record.address,
      label: record.label,
      network: record.network,
      createTime: isoTime(record.createTime),
      updateTime: isoTime(record.updateTime),
    };
  }

  virtualAccount(record: VirtualAccountRecord) {
    const customer = this.store.customers.find(record.partnerId, record.customerId);
    const issued = record.accountNumber !== null;
    return {
      id: record.id,
      customerId: record.customerId,
      customerName: customer?.realName ?? null,
      currency: record.currency,
      accountNumber: record.accountNumber,
      bsbNumber: record.bsbNumber,
      bicSwift: issued ? SANDBOX_BIC : null,
      payId: record.payId,
      bankName: issued ? SANDBOX_BANK_NAME : null,
      status: record.status,
      createTime: isoTime(record.createTime),
      updateTime: isoTime(record.updateTime),
    };
  }

  whitelistEntry(entry: WhitelistEntry) {
    return {
      id: entry.id,
      bsbNumber: entry.bsbNumber,
      accountNumber: entry.accountNumber,
      accountName: entry.accountName,
      accountStatus: entry.accountStatus,
    };
  }

  depositAddress(record: DepositAddressRecord) {
    return {
      id: record.id,
      customerId: record.customerId,
      currency: record.currency,
      network: record.network,
      address: record.address,
      status: record.status,
      createTime: isoTime(record.createTime),
      updateTime: isoTime(record.updateTime),
    };
  }

  /** `timestamp` is the time of the deposit's latest event (interface: "Event time"). */
  deposit(record: DepositRecord) {
    const virtualAccount =
      record.virtualAccountId === null
        ? undefined
        : this.store.virtualAccounts.find(record.partnerId, record.virtualAccountId);
    const depositAddress =
      record.depositAddressId === null
        ? undefined
        : this.store.depositAddresses.find(record.partnerId, record.depositAddressId);
    const sender = record.sender;
    return {
      id: record.id,
      customerId: record.customerId,
      type: record.type,
      currency: record.currency,
      amount: formatAmount(record.amount, record.currency),
      senderBankAccount:
        sender.kind === 'BANK'
          ? {
              accountNo: sender.accountNumber,
              bsbNumber: sender.bsbNumber,
              accountName: sender.accountName,
              currency: record.currency,
            }
          : null,
      senderCryptoAddress:
        sender.kind === 'CRYPTO'
          ? { address: sender.address, network: sender.network, currency: record.currency }
          : null,
      receiverDepositAddress: depositAddress === undefined ? null : this.depositAddress(depositAddress),
      receiverVirtualAccount: virtualAccount === undefined ? null : this.virtualAccount(virtualAccount),
      txid: record.txid,
      voutIndexTxKey: `${record.txid}_0`,
      txFrom: this.txFrom(record),
      txReference: record.txReference,
      status: record.status,
      timestamp: isoTime(record.updateTime),
    };
  }

  depositListItem(record: DepositRecord) {
    return {
      id: record.id,
      currency: record.currency,
      amount: formatAmount(record.amount, record.currency),
      status: record.status,
      txid: record.txid,
      voutIndexTxKey: `${record.txid}_0`,
      timestamp: isoTime(record.updateTime),
      customerName: this.store.customers.find(record.partnerId, record.customerId)?.realName ?? null,
      customerId: record.customerId,
      txFrom: this.txFrom(record),
      txReference: record.txReference,
    };
  }

  /** A deposit as the older generation lists it: an integer id, snake_case where it differs. */
  legacyDeposit(record: DepositRecord, id: number) {
    return {
      id,
      deposit_id: record.id,
      user_id: record.customerId,
      currency: record.currency,
      amount: formatAmount(record.amount, record.currency),
      status: record.status,
      txid: record.txid,
      create_time: isoTime(record.createTime),
    };
  }

  autorampFlow(record: AutorampFlowRecord) {
    // No customerId and no creator since release 2026-03-27.
    return {
      id: record.id,
      type: record.type,
      from: record.from,
      to: record.to,
      status: record.status,
      createTime: isoTime(record.createTime),
    };
  }

  trade(record: TradeRecord) {
    const deposit = this.store.deposits.find(record.partnerId, record.depositId);
    return {
      id: record.id,
      fromAmount: formatAmount(record.fromAmount, record.fromCurrency),
      fromCurrency: record.fromCurrency,
      toAmount: formatAmount(record.toAmount, record.toCurrency),
      toCurrency: record.toCurrency,
      rate: formatRate(record.rate),
      status: record.status,
      createTime: isoTime(record.createTime),
      updateTime: isoTime(record.updateTime),
      customerId: record.customerId,
      autorampFlowId: record.flowId,
      // The interface shows no trade-to-payment link and no payment list, so a lost PAYMENT_SETTLED
      // could never be found by polling. We assume the trade detail names its payment ("further
      // trade fields: not shown"); rampflow reads it when present and relies on the event otherwise.
      ...(record.paymentId ? { paymentId: record.paymentId } : {}),
      deposit: {
        id: record.depositId,
        currency: deposit?.currency ?? record.fromCurrency,
        amount:
          deposit === undefined
            ? formatAmount(record.fromAmount, record.fromCurrency)
            : formatAmount(deposit.amount, deposit.currency),
      },
    };
  }

  /**
   * The detail's payee block. The event variant differs (interface: "Payment"): it carries
   * `bankName`, `accountNo`, `currency` and `beneficiaryName`, so `paymentEvent` builds that one.
   */
  payment(record: PaymentRecord) {
    const bank = this.store.bankAccounts.find(record.partnerId, record.bankAccountId);
    return {
      ...this.paymentCore(record),
      bankAccount: {
        bankName: bank?.bankName ?? '',
        accountNo: bank?.accountNo ?? '',
        swift: bank?.swift ?? '',
        beneficiaryName: bank?.beneficiaryName ?? '',
        beneficiaryAddress: bank?.beneficiaryAddress ?? '',
        bankCountry: bank?.bankCountry ?? '',
        bankAddress: bank?.bankAddress ?? '',
      },
    };
  }

  paymentEvent(record: PaymentRecord) {
    const bank = this.store.bankAccounts.find(record.partnerId, record.bankAccountId);
    return {
      ...this.paymentCore(record),
      bankAccount: {
        bankName: bank?.bankName ?? '',
        accountNo: bank?.accountNo ?? '',
        currency: record.currency,
        beneficiaryName: bank?.beneficiaryName ?? '',
      },
    };
  }

  /** The reference names the trade the payment pays out (how rampflow correlates them, DESIGN), or the partner's own for a payout. */
  private paymentCore(record: PaymentRecord) {
    return {
      id: record.id,
      status: record.status,
      rate: formatRate(record.rate),
      deductAmount: formatAmount(record.deductAmount, record.deductCurrency),
      deductCurrency: record.deductCurrency,
      receivedCurrency: record.currency,
      receivedAmount: formatAmount(record.receivedAmount - record.bankCharge, record.currency),
      bankCharge: formatAmount(record.bankCharge, record.currency),
      reference: record.reference,
      createTime: paymentTime(record.createTime),
      ...(record.failureReason !== undefined ? { failureReason: record.failureReason } : {}),
    };
  }

  private txFrom(record: DepositRecord): string {
    const sender = record.sender;
    return sender.kind === 'CRYPTO'
      ? sender.address
      : [sender.bsbNumber, sender.accountNumber].filter((part) => part !== null).join(' ');
  }
}
