/**
 * What a deposit's workflow (workflows/deposit/workflow.ts) holds of the service's records, and the only ways
 * it changes: each record moves only forward, a trade or payment is this deposit's only when the
 * service's record links it (under the trust rule, workflows/common/trust.ts), and where a held record came
 * from (the service, or a webhook's payload under direct routing) is kept with it. The workflow's
 * visible state (DepositState) follows every change. No I/O: the workflow reads, the ledger takes.
 */
import type { DepositState } from '../common/messages';
import { depositKindOf as kindOf, type DepositRecord, type PaymentRecord, type TradeRecord } from '../common/records';
import { advancesDeposit, advancesTrade } from '../common/status-order';
import { paymentNamesTrade, tradeNamesDeposit } from '../common/trust';

export class DepositLedger {
  deposit: DepositRecord | undefined;
  trade: TradeRecord | undefined;
  payment: PaymentRecord | undefined;
  /** Whether the trade and payment held are a webhook's payload (direct routing) rather than the service's record. */
  tradeFromPayload = false;
  paymentFromPayload = false;
  /** Set once the deposit read its own record from the service (a retried stage does not read it again). */
  ownRecordRead = false;
  /**
   * Set once the service showed the deposit confirmed (its record CONFIRMED, or a trade it links to the
   * deposit): a REJECTED record after that is a refund, a reversal of money that had moved.
   */
  confirmedOnce = false;
  /** Set once an operator's attachment was accepted by the service. */
  attachmentSubmitted = false;
  /**
   * The sha256 of the attachment being submitted or submitted (workflows/deposit/handlers.ts): the
   * deposit takes one file; the same one again gets the first one's answer, a different one is refused.
   */
  attachmentSha256: string | undefined;
  readonly state: DepositState;
  /**
   * Set once a record named where the money came in (a virtual account or a deposit address: a detail
   * read). The kind is then known; a list item names neither, and its currency is only a guess
   * (`depositKindOf`), which must not overturn what is known.
   */
  private kindKnown = false;

  /**
   * @param verifiesPayloads whether the run follows the trust rule (PAYLOADS_ARE_HINTS)
   * @param starterDeposit the record the starter passed, if any: shown until the service's own is read
   * @param keepsKnownKind whether the run keeps a known kind against a guess (DEPOSIT_KIND_KEPT); asked
   *   only when a guess differs from it, so a run records the patch only where it changes something
   */
  constructor(
    private readonly depositId: string,
    private readonly verifiesPayloads: boolean,
    starterDeposit: DepositRecord | undefined,
    private readonly keepsKnownKind: () => boolean,
  ) {
    this.deposit = starterDeposit;
    this.kindKnown = starterDeposit !== undefined && namesReceiver(starterDeposit);
    this.state = {
      depositId,
      customerId: starterDeposit?.customerId ?? '',
      kind: starterDeposit ? kindOf(starterDeposit) : 'ONRAMP',
      stage: 'RECEIVED',
      status: starterDeposit?.status ?? 'RECEIVED',
      amount: starterDeposit?.amount ?? '0',
      currency: starterDeposit?.currency ?? '',
      waitingFor: "the service's record of the deposit",
    };
  }

  applyDeposit(record: DepositRecord): void {
    if (record.id !== this.depositId) return;
    // A refund is the one move back the service reports (DEPOSIT_REFUND, ramp/assumptions.ts): taken
    // only from the service's own record, since hints never reach here.
    const refund =
      this.verifiesPayloads &&
      this.confirmedOnce &&
      record.status === 'REJECTED' &&
      this.deposit?.status !== 'REJECTED';
    if (this.deposit && !refund && !advancesDeposit(this.deposit.status, record.status)) return;
    this.deposit = record;
    if (this.verifiesPayloads && record.status === 'CONFIRMED') this.confirmedOnce = true;
    this.state.status = record.status;
    this.state.customerId = record.customerId;
    this.takeKind(record);
    this.state.amount = record.amount;
    this.state.currency = record.currency;
  }

  /** The kind a record names, or guesses when the kind is not known yet (workflows/common/records.ts, depositKindOf). */
  private takeKind(record: DepositRecord): void {
    const named = namesReceiver(record);
    if (!named && this.kindKnown && kindOf(record) !== this.state.kind && this.keepsKnownKind()) return;
    this.state.kind = kindOf(record);
    this.kindKnown ||= named;
  }

  /** The service's own record of the deposit, read by the deposit itself: it replaces whatever the starter passed. */
  takeOwnRecord(record: DepositRecord): void {
    this.deposit = undefined;
    this.applyDeposit(record);
    this.ownRecordRead = true;
  }

  applyTrade(record: TradeRecord, fromPayload = false): void {
    // Under the trust rule a trade is this deposit's only when the service's record names it.
    if (
      this.verifiesPayloads
        ? !tradeNamesDeposit(record, this.depositId)
        : record.depositId !== undefined && record.depositId !== this.depositId
    )
      return;
    if (this.trade && (this.trade.id !== record.id || !advancesTrade(this.trade.status, record.status))) return;
    this.trade = record;
    if (this.verifiesPayloads) this.confirmedOnce = true;
    this.tradeFromPayload = fromPayload;
    this.state.tradeId = record.id;
    if (record.paymentId) this.state.paymentId = record.paymentId;
  }

  applyPayment(record: PaymentRecord, fromPayload = false): void {
    if (this.state.paymentId && record.id !== this.state.paymentId) return;
    // A payment pays out this deposit's trade or none of ours (the service's record names the trade).
    if (this.verifiesPayloads && this.trade && !paymentNamesTrade(record, this.trade.id)) return;
    this.payment = record;
    this.paymentFromPayload = fromPayload;
    this.state.paymentId = record.id;
  }

  /** The service's word on a trade held from a payload: it replaces the payload's, even where it is behind it. */
  takeServiceTrade(record: TradeRecord): void {
    this.trade = record;
    this.tradeFromPayload = false;
  }

  /** The service's word on a payment held from a payload. */
  takeServicePayment(record: PaymentRecord): void {
    this.payment = record;
    this.paymentFromPayload = false;
  }

  /** A run that reports a refund after completion: the service had confirmed the deposit. */
  knowConfirmed(): void {
    this.confirmedOnce = true;
  }

  /** The service refunded the deposit after confirming it (its own record says so). */
  refunded(): boolean {
    return this.verifiesPayloads && this.confirmedOnce && this.deposit?.status === 'REJECTED';
  }

  /** What a completed deposit did, as its outcome says it. */
  completion(): string {
    const traded = this.trade
      ? `traded ${this.trade.fromAmount} ${this.trade.fromCurrency} for ${this.trade.toAmount} ${this.trade.toCurrency}`
      : 'traded';
    return this.state.kind === 'OFFRAMP' && this.payment ? `${traded}; paid out as payment ${this.payment.id}` : traded;
  }
}

/** Whether a record names where the money came in (detail reads do; list items do not). */
const namesReceiver = (record: DepositRecord): boolean =>
  record.virtualAccountId !== undefined || record.depositAddressId !== undefined;
