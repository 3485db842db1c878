/**
 * What a deposit's run (workflows/deposit/run.ts) knows, as plain data, and the only ways it changes. No
 * I/O and no Temporal: the run reads, these take.
 *
 * - `DepositLedger`: what it holds of the service's records. Each record moves only forward, and a trade
 *   or payment is this deposit's only when the service's record links it (the trust rule,
 *   workflows/common/trust.ts). The visible state (DepositState) follows every change.
 * - `DepositJourneyLink`: which journey it reports to, and what it last told it.
 * - `DepositHints`: what deliveries claim about the deposit, its trade and its payment, waiting for a
 *   look through the service, and which claim is news (the run's look reads it).
 */
import { type DepositStage, type DepositState, journeyWorkflowId } from '../common/messages';
import {
  advancesDeposit,
  advancesTrade,
  depositKindOf as kindOf,
  type DepositRecord,
  isPaymentSettled,
  type PaymentRecord,
  type TradeRecord,
} from '../common/records';
import { type CarriedHints, type Hint, paymentNamesTrade, PendingHints, tradeNamesDeposit } from '../common/trust';

export class DepositLedger {
  deposit: DepositRecord | undefined;
  trade: TradeRecord | undefined;
  payment: PaymentRecord | undefined;
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
   * The sha256 of the attachment being submitted or submitted (the run's `submitAttachment` handler): the
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

  /** @param starterDeposit the record the starter passed, if any: shown until the service's own is read */
  constructor(
    private readonly depositId: string,
    starterDeposit: DepositRecord | undefined,
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
    const refund = this.confirmedOnce && record.status === 'REJECTED' && this.deposit?.status !== 'REJECTED';
    if (this.deposit && !refund && !advancesDeposit(this.deposit.status, record.status)) return;
    this.deposit = record;
    if (record.status === 'CONFIRMED') this.confirmedOnce = true;
    this.state.status = record.status;
    this.state.customerId = record.customerId;
    this.takeKind(record);
    this.state.amount = record.amount;
    this.state.currency = record.currency;
  }

  /** The kind a record names, or guesses when the kind is not known yet (workflows/common/records.ts, depositKindOf). */
  private takeKind(record: DepositRecord): void {
    const named = namesReceiver(record);
    if (!named && this.kindKnown && kindOf(record) !== this.state.kind) return;
    this.state.kind = kindOf(record);
    this.kindKnown ||= named;
  }

  /** The service's own record of the deposit, read by the deposit itself: it replaces whatever the starter passed. */
  takeOwnRecord(record: DepositRecord): void {
    this.deposit = undefined;
    this.applyDeposit(record);
    this.ownRecordRead = true;
  }

  applyTrade(record: TradeRecord): void {
    // A trade is this deposit's only when the service's record names it.
    if (!tradeNamesDeposit(record, this.depositId)) return;
    if (this.trade && (this.trade.id !== record.id || !advancesTrade(this.trade.status, record.status))) return;
    this.trade = record;
    this.confirmedOnce = true;
    this.state.tradeId = record.id;
    if (record.paymentId) this.state.paymentId = record.paymentId;
  }

  applyPayment(record: PaymentRecord): void {
    if (this.state.paymentId && record.id !== this.state.paymentId) return;
    // A payment pays out this deposit's trade or none of ours (the service's record names the trade).
    if (this.trade && !paymentNamesTrade(record, this.trade.id)) return;
    this.payment = record;
    this.state.paymentId = record.id;
  }

  /** A run that reports a refund after completion: the service had confirmed the deposit. */
  knowConfirmed(): void {
    this.confirmedOnce = true;
  }

  /** The service refunded the deposit after confirming it (its own record says so). */
  refunded(): boolean {
    return this.confirmedOnce && this.deposit?.status === 'REJECTED';
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

/**
 * Which journey a deposit reports to, and what it last told it. The reports themselves are sent by the
 * run (its `enterStage`); this holds only what they depend on.
 */
export class DepositJourneyLink {
  /** The customer's externalId, and so the journey to report to; undefined when the customer has none we know. */
  externalId: string | undefined;
  journeyId: string | undefined;
  /** The stage the journey last heard, so it can keep its counts right. */
  reportedStage: DepositStage | undefined;
  /** Set once the journey heard of the deposit, or an operator chose to track it without one. */
  served = false;

  /** Indexed with the next stage shown. */
  learnJourney(owner: string): void {
    this.externalId = owner;
    this.journeyId = journeyWorkflowId(owner);
  }

  /** The journey has heard of the deposit (served from then on). */
  noteServedIfReported(): void {
    this.served ||= this.reportedStage !== undefined;
  }

  /** An operator's retry of a deposit no journey takes tracks it anyway (reports are then best effort). */
  trackWithoutJourney(): void {
    this.served = true;
  }
}

/** What a deposit's hints hand to its next run (workflows/deposit/carry.ts). */
export interface CarriedDepositHints {
  deposit: CarriedHints;
  trade: CarriedHints;
  payment: CarriedHints;
}

/**
 * A deposit's hints (workflows/common/trust.ts): one box each for the deposit, its trades and its
 * payments. A claim is news only when it says what the service has not told the deposit yet; the run
 * looks at the furthest news (a payment, else a trade, else the deposit) and clears or refuses it here.
 */
export class DepositHints {
  private readonly depositHints: PendingHints;
  private readonly tradeHints: PendingHints;
  private readonly paymentHints: PendingHints;

  /** @param carried what the previous run's hints held, when this run continued it */
  constructor(
    private readonly depositId: string,
    private readonly ledger: DepositLedger,
    carried?: CarriedDepositHints,
  ) {
    // First come: a burst of forged hints cannot push a genuine one out (workflows/common/trust.ts).
    this.depositHints = new PendingHints(1, true, carried?.deposit);
    this.tradeHints = new PendingHints(4, true, carried?.trade);
    this.paymentHints = new PendingHints(4, true, carried?.payment);
  }

  carry(): CarriedDepositHints {
    return { deposit: this.depositHints.carry(), trade: this.tradeHints.carry(), payment: this.paymentHints.carry() };
  }

  noteDeposit(record: Hint): void {
    if (record.id === this.depositId) this.depositHints.note(record);
  }

  noteTrade(record: Hint): void {
    this.tradeHints.note(record);
  }

  notePayment(record: Hint): void {
    this.paymentHints.note(record);
  }

  /** Whether any claim is news. */
  claimNews(): boolean {
    return this.nextPaymentClaim() !== undefined || this.nextTradeClaim() !== undefined || this.depositClaimIsNews();
  }

  /** The payment whose claim to read next (the oldest), if any is news. */
  nextPaymentClaim(): string | undefined {
    return this.paymentHints.next(this.paymentHintIsNews);
  }

  nextTradeClaim(): string | undefined {
    return this.tradeHints.next(this.tradeHintIsNews);
  }

  /** A deposit claim is news when it moves the deposit's held status forward and no trade says more. */
  depositClaimIsNews(): boolean {
    const { ledger } = this;
    const claim = this.depositHints.claimFor(this.depositId);
    // A trade the service links to this deposit already says the deposit was confirmed.
    return (
      claim !== undefined &&
      ledger.deposit !== undefined &&
      ledger.trade === undefined &&
      claim !== ledger.deposit.status &&
      advancesDeposit(ledger.deposit.status, claim)
    );
  }

  /** The claim is being read: it leaves its box. */
  clearPayment(paymentId: string): void {
    this.paymentHints.clear(paymentId);
  }

  clearTrade(tradeId: string): void {
    this.tradeHints.clear(tradeId);
  }

  clearDeposit(): void {
    this.depositHints.clear(this.depositId);
  }

  /** A read found the record absent or not this deposit's (workflows/common/trust.ts, `refuse`). */
  refusePayment(paymentId: string): void {
    this.paymentHints.refuse(paymentId);
  }

  refuseTrade(tradeId: string): void {
    this.tradeHints.refuse(tradeId);
  }

  private readonly tradeHintIsNews = (id: string): boolean => {
    const { ledger } = this;
    const claim = this.tradeHints.claimFor(id)!;
    return (
      ledger.trade === undefined ||
      (id === ledger.trade.id && claim !== ledger.trade.status && advancesTrade(ledger.trade.status, claim))
    );
  };

  private readonly paymentHintIsNews = (id: string): boolean =>
    this.ledger.state.kind === 'OFFRAMP' &&
    (this.ledger.payment === undefined ||
      (id === this.ledger.payment.id && !isPaymentSettled(this.ledger.payment.status)));
}
