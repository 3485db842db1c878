/**
 * Deposits, trades and payments, and the balances they move.
 *
 * Deposit: RECEIVED → CONFIRMED | REJECTED | ACTION_REQUIRED; ACTION_REQUIRED → CONFIRMED (once an
 * attachment has been submitted) | REJECTED; CONFIRMED → REJECTED when refunded (DEPOSIT_REFUND in
 * ramp/assumptions.ts: at any point of its trade and payment, which are left as they are and, when
 * still pending, never settle). An AUD deposit from a sender that is not an active
 * whitelist entry is recorded and rejected at once (RECEIVED, then REJECTED, both announced).
 * Confirmed deposit on the entry of an enabled flow → trade (PENDING → SETTLED). A settled OFFRAMP
 * trade → payment to the exit bank account (PENDING → CONFIRMED, announced as PAYMENT_SETTLED), whose
 * `reference` is the trade id. A payout from the partner's balance (POST /payment/create) is a
 * payment of the same kind without a trade: deducted in a stablecoin, converted to the bank account's
 * currency, carrying the partner's reference; refused when the balance, less the payouts still
 * pending, is short.
 *
 * Balances (the partner's, per currency): a confirmed deposit credits its amount; a settled trade
 * debits the from-amount and credits the to-amount; an ONRAMP's crypto leaves at once for the exit
 * address (debited on settlement); a settled payment debits what it deducted; a refund debits the
 * deposit's amount in its currency, and nothing else is unwound.
 */
import {
  convert,
  formatAmount,
  isCrypto,
  rateOf,
  type CryptoCurrency,
  type Currency,
  type Network,
} from '../currencies';
import { DEPOSIT_REFUND } from '../../ramp/assumptions';
import { parseDecimal } from '../decimal';
import { failed, invalidParameters } from '../http/errors';
import { newBankReference, newId, newTxid } from '../identifiers';
import type { DepositRecord, DepositSender, PaymentRecord, TradeRecord } from '../state/records';
import { requireStatus, type DomainContext } from './context';
import { isWhitelistedSender } from './receiving-accounts';

export type SimulatedDeposit =
  | {
      virtualAccountId: string;
      amount: string;
      currency: string;
      sender: { bsbNumber?: string | undefined; accountNumber: string; accountName?: string | undefined };
    }
  | { depositAddressId: string; amount: string; currency: string; sender: { address: string; network: Network } };

function positiveAmount(text: string): bigint {
  const amount = parseDecimal(text);
  if (amount <= 0n) throw invalidParameters('amount must be greater than zero');
  return amount;
}

/** Money arrives at a virtual account or a deposit address. */
export function receiveDeposit(ctx: DomainContext, partnerId: string, input: SimulatedDeposit): DepositRecord {
  const amount = positiveAmount(input.amount);
  let base: Pick<
    DepositRecord,
    'customerId' | 'type' | 'currency' | 'sender' | 'virtualAccountId' | 'depositAddressId' | 'txid' | 'txReference'
  >;
  let whitelisted = true;
  if ('virtualAccountId' in input) {
    const account = ctx.store.virtualAccounts.find(partnerId, input.virtualAccountId);
    if (account === undefined) throw failed('virtual account not found');
    if (account.status !== 'VERIFIED')
      throw failed(`virtual account is ${account.status}; it cannot receive money before it is VERIFIED`);
    if (input.currency !== account.currency)
      throw invalidParameters(`the virtual account receives ${account.currency}, not ${input.currency}`);
    if (account.currency === 'AUD' && input.sender.bsbNumber === undefined)
      throw invalidParameters('an AUD sender needs a bsbNumber');
    const sender: DepositSender = {
      kind: 'BANK',
      bsbNumber: input.sender.bsbNumber ?? null,
      accountNumber: input.sender.accountNumber,
      accountName: input.sender.accountName ?? null,
    };
    whitelisted = account.currency !== 'AUD' || isWhitelistedSender(account, sender.bsbNumber, sender.accountNumber);
    base = {
      customerId: account.customerId,
      type: 'FIAT',
      currency: account.currency,
      sender,
      virtualAccountId: account.id,
      depositAddressId: null,
      txid: newBankReference(),
      txReference: `PAY ${account.accountNumber ?? ''}`.trim(),
    };
  } else {
    const address = ctx.store.depositAddresses.find(partnerId, input.depositAddressId);
    if (address === undefined) throw failed('deposit address not found');
    if (address.status !== 'APPROVED')
      throw failed(`deposit address is ${address.status}; it cannot receive money before it is APPROVED`);
    if (input.currency !== address.currency)
      throw invalidParameters(`the deposit address receives ${address.currency}, not ${input.currency}`);
    if (input.sender.network !== address.network)
      throw invalidParameters(`the deposit address is on ${address.network}, not ${input.sender.network}`);
    base = {
      customerId: address.customerId,
      type: 'CRYPTO',
      currency: address.currency,
      sender: { kind: 'CRYPTO', address: input.sender.address, network: input.sender.network },
      virtualAccountId: null,
      depositAddressId: address.id,
      txid: `0x${newTxid()}`,
      txReference: '',
    };
  }
  const now = ctx.now();
  const deposit = ctx.store.deposits.insert({
    ...base,
    id: newId(),
    partnerId,
    amount,
    status: 'RECEIVED',
    attachments: [],
    createTime: now,
    updateTime: now,
  });
  ctx.emit(partnerId, deposit.customerId, 'DEPOSIT_RECEIVED', ctx.views.deposit(deposit));
  // Only whitelisted accounts can transfer into an AUD virtual account: the money goes back.
  if (!whitelisted) moveDeposit(ctx, deposit, 'REJECTED');
  else ctx.changed({ kind: 'deposit', partnerId, id: deposit.id });
  return deposit;
}

function findDeposit(ctx: DomainContext, partnerId: string, id: string): DepositRecord {
  const deposit = ctx.store.deposits.find(partnerId, id);
  if (deposit === undefined) throw failed('deposit not found');
  return deposit;
}

function moveDeposit(ctx: DomainContext, deposit: DepositRecord, status: DepositRecord['status']): void {
  deposit.status = status;
  deposit.updateTime = ctx.now();
  if (status === 'CONFIRMED')
    ctx.emit(deposit.partnerId, deposit.customerId, 'DEPOSIT_APPROVED', ctx.views.deposit(deposit));
  if (status === 'REJECTED')
    ctx.emit(deposit.partnerId, deposit.customerId, 'DEPOSIT_REJECTED', ctx.views.deposit(deposit));
  ctx.changed({ kind: 'deposit', partnerId: deposit.partnerId, id: deposit.id });
}

export function confirmDeposit(ctx: DomainContext, partnerId: string, id: string): DepositRecord {
  const deposit = findDeposit(ctx, partnerId, id);
  requireStatus('deposit', deposit.status, ['RECEIVED', 'ACTION_REQUIRED'], 'confirm');
  if (deposit.status === 'ACTION_REQUIRED' && deposit.attachments.length === 0) {
    throw failed('the deposit needs an attachment (POST /deposit/submitAttachmentFile) before it can be confirmed');
  }
  moveDeposit(ctx, deposit, 'CONFIRMED');
  ctx.adjustBalance(partnerId, deposit.currency, deposit.amount);
  startTrade(ctx, deposit);
  return deposit;
}

export function rejectDeposit(ctx: DomainContext, partnerId: string, id: string): DepositRecord {
  const deposit = findDeposit(ctx, partnerId, id);
  requireStatus('deposit', deposit.status, ['RECEIVED', 'ACTION_REQUIRED'], 'reject');
  moveDeposit(ctx, deposit, 'REJECTED');
  return deposit;
}

/**
 * The service gives a confirmed deposit's money back (DEPOSIT_REFUND in ramp/assumptions.ts): the
 * deposit shows REJECTED and DEPOSIT_REJECTED fires, while its trade and payment keep their status.
 */
export function refundDeposit(ctx: DomainContext, partnerId: string, id: string): DepositRecord {
  const deposit = findDeposit(ctx, partnerId, id);
  requireStatus('deposit', deposit.status, DEPOSIT_REFUND.from, 'refund');
  moveDeposit(ctx, deposit, DEPOSIT_REFUND.status);
  ctx.adjustBalance(partnerId, deposit.currency, -deposit.amount);
  return deposit;
}

/** Whether the deposit a trade converts (or a payment pays out) was refunded: then it never settles. */
export function fundsRefunded(ctx: DomainContext, partnerId: string, record: TradeRecord | PaymentRecord): boolean {
  const trade =
    'depositId' in record
      ? record
      : record.tradeId === null
        ? undefined
        : ctx.store.trades.find(partnerId, record.tradeId);
  return trade !== undefined && ctx.store.deposits.find(partnerId, trade.depositId)?.status === DEPOSIT_REFUND.status;
}

/** The interface ties no event to ACTION_REQUIRED, so none is fired. */
export function requireDepositAction(ctx: DomainContext, partnerId: string, id: string): DepositRecord {
  const deposit = findDeposit(ctx, partnerId, id);
  requireStatus('deposit', deposit.status, ['RECEIVED'], 'require action on');
  moveDeposit(ctx, deposit, 'ACTION_REQUIRED');
  return deposit;
}

/** POST /deposit/submitAttachmentFile: accepted for ACTION_REQUIRED deposits only; it lets them be confirmed. */
export function attachToDeposit(ctx: DomainContext, partnerId: string, id: string, fileName: string): DepositRecord {
  const deposit = findDeposit(ctx, partnerId, id);
  requireStatus('deposit', deposit.status, ['ACTION_REQUIRED'], 'attach a file to');
  deposit.attachments.push(fileName);
  deposit.updateTime = ctx.now();
  ctx.changed({ kind: 'deposit', partnerId, id });
  return deposit;
}

function startTrade(ctx: DomainContext, deposit: DepositRecord): void {
  const entryId = deposit.virtualAccountId ?? deposit.depositAddressId;
  const flow = ctx.store.flows.list(deposit.partnerId, (f) => f.from === entryId && f.status === 'ENABLED')[0];
  if (flow === undefined) return;
  const toCurrency: Currency | undefined =
    flow.type === 'ONRAMP'
      ? ctx.store.cryptoAddresses.find(deposit.partnerId, flow.to)?.currency
      : ctx.store.bankAccounts.find(deposit.partnerId, flow.to)?.currency;
  if (toCurrency === undefined) return;
  const now = ctx.now();
  const trade = ctx.store.trades.insert({
    id: newId(),
    partnerId: deposit.partnerId,
    customerId: deposit.customerId,
    flowId: flow.id,
    depositId: deposit.id,
    fromCurrency: deposit.currency,
    fromAmount: deposit.amount,
    toCurrency,
    // Truncated to the currency's precision so the amount shown is the amount moved.
    toAmount: parseDecimal(formatAmount(convert(deposit.amount, deposit.currency, toCurrency), toCurrency)),
    rate: rateOf(deposit.currency, toCurrency),
    status: 'PENDING',
    paymentId: null,
    createTime: now,
    updateTime: now,
  });
  ctx.emit(deposit.partnerId, trade.customerId, 'TRADE_CREATED', ctx.views.trade(trade));
  ctx.changed({ kind: 'trade', partnerId: trade.partnerId, id: trade.id });
}

export function settleTrade(ctx: DomainContext, partnerId: string, id: string): TradeRecord {
  const trade = ctx.store.trades.find(partnerId, id);
  if (trade === undefined) throw failed('trade not found');
  requireStatus('trade', trade.status, ['PENDING'], 'settle');
  if (fundsRefunded(ctx, partnerId, trade)) throw failed('cannot settle a trade whose deposit was refunded');
  trade.status = 'SETTLED';
  trade.updateTime = ctx.now();
  ctx.adjustBalance(partnerId, trade.fromCurrency, -trade.fromAmount);
  ctx.adjustBalance(partnerId, trade.toCurrency, trade.toAmount);
  ctx.emit(partnerId, trade.customerId, 'TRADE_SETTLED', ctx.views.trade(trade));
  ctx.changed({ kind: 'trade', partnerId, id });
  const flow = ctx.store.flows.find(partnerId, trade.flowId);
  if (flow?.type === 'ONRAMP' && isCrypto(trade.toCurrency))
    ctx.adjustBalance(partnerId, trade.toCurrency, -trade.toAmount);
  if (flow?.type === 'OFFRAMP') startPayment(ctx, trade, flow.to);
  return trade;
}

function startPayment(ctx: DomainContext, trade: TradeRecord, bankAccountId: string): void {
  const bank = ctx.store.bankAccounts.find(trade.partnerId, bankAccountId);
  if (bank === undefined) return;
  const now = ctx.now();
  const payment: PaymentRecord = ctx.store.payments.insert({
    id: newId(),
    partnerId: trade.partnerId,
    customerId: trade.customerId,
    tradeId: trade.id,
    reference: trade.id,
    bankAccountId,
    currency: bank.currency,
    deductCurrency: bank.currency,
    deductAmount: trade.toAmount,
    rate: rateOf(bank.currency, bank.currency),
    receivedAmount: trade.toAmount,
    // Fees are not shown by the interface; the sandbox charges none.
    bankCharge: 0n,
    status: 'PENDING',
    createTime: now,
    updateTime: now,
  });
  trade.paymentId = payment.id;
  ctx.changed({ kind: 'payment', partnerId: payment.partnerId, id: payment.id });
}

export interface NewPayout {
  bankAccountId: string;
  deductCurrency: CryptoCurrency;
  deductAmount: string;
  reference: string;
}

/** POST /payment/create: a payout from the partner's balance to a customer's registered bank account. */
export function createPayout(ctx: DomainContext, partnerId: string, input: NewPayout): PaymentRecord {
  const deductAmount = positiveAmount(input.deductAmount);
  const bank = ctx.store.bankAccounts.find(partnerId, input.bankAccountId);
  if (bank === undefined) throw failed('bank account not found');
  const pending = ctx.store.payments
    .list(partnerId, (payment) => payment.status === 'PENDING' && payment.deductCurrency === input.deductCurrency)
    .reduce((sum, payment) => sum + payment.deductAmount, 0n);
  const available = (ctx.store.partner(partnerId).balances.get(input.deductCurrency) ?? 0n) - pending;
  if (available < deductAmount) {
    throw failed(
      `insufficient ${input.deductCurrency} balance: ${formatAmount(available, input.deductCurrency)} available, ${formatAmount(deductAmount, input.deductCurrency)} needed`,
    );
  }
  const now = ctx.now();
  const payment = ctx.store.payments.insert({
    id: newId(),
    partnerId,
    customerId: bank.customerId,
    tradeId: null,
    reference: input.reference,
    bankAccountId: bank.id,
    currency: bank.currency,
    deductCurrency: input.deductCurrency,
    deductAmount,
    rate: rateOf(input.deductCurrency, bank.currency),
    receivedAmount: parseDecimal(
      formatAmount(convert(deductAmount, input.deductCurrency, bank.currency), bank.currency),
    ),
    bankCharge: 0n,
    status: 'PENDING',
    createTime: now,
    updateTime: now,
  });
  ctx.changed({ kind: 'payment', partnerId, id: payment.id });
  return payment;
}

/**
 * The bank or the service gives up on a PENDING payment: it becomes FAILED with the reason, nothing
 * is debited (a payout's amount was only held while pending), and no event fires (the interface
 * shows none for a failed payment; rampflow learns it by reading the payment).
 */
export function failPayment(ctx: DomainContext, partnerId: string, id: string, reason: string): PaymentRecord {
  const payment = ctx.store.payments.find(partnerId, id);
  if (payment === undefined) throw failed('payment not found');
  requireStatus('payment', payment.status, ['PENDING'], 'fail');
  payment.status = 'FAILED';
  payment.failureReason = reason;
  payment.updateTime = ctx.now();
  ctx.changed({ kind: 'payment', partnerId, id });
  return payment;
}

export function settlePayment(ctx: DomainContext, partnerId: string, id: string): PaymentRecord {
  const payment = ctx.store.payments.find(partnerId, id);
  if (payment === undefined) throw failed('payment not found');
  requireStatus('payment', payment.status, ['PENDING'], 'settle');
  if (fundsRefunded(ctx, partnerId, payment)) throw failed('cannot settle a payment whose deposit was refunded');
  payment.status = 'CONFIRMED';
  payment.updateTime = ctx.now();
  ctx.adjustBalance(partnerId, payment.deductCurrency, -payment.deductAmount);
  ctx.emit(partnerId, payment.customerId, 'PAYMENT_SETTLED', ctx.views.paymentEvent(payment));
  ctx.changed({ kind: 'payment', partnerId, id });
  return payment;
}
