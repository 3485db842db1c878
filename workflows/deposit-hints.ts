/**
 * A deposit's hints (workflows/trust.ts): what deliveries claim about the deposit, its trade and its
 * payment, waiting for a look through the service. A claim is looked at only when it is news, and
 * what the service says is taken only when it links the record to this deposit.
 */
import { depositActivities as act } from './deposit-activities';
import type { DepositLedger } from './deposit-ledger';
import { readOptions } from './activity-options';
import type { TradeRecord } from './records';
import { isPaymentSettled } from './records';
import { isAbsent } from './service-failures';
import { advancesDeposit, advancesTrade } from './status-order';
import { countIgnoredHint } from './trust-metrics';
import { paymentNamesTrade, PendingHints, tradeNamesDeposit, type Hint } from './trust';

export class DepositHints {
  private readonly depositHints = new PendingHints(1);
  private readonly tradeHints = new PendingHints(4);
  private readonly paymentHints = new PendingHints(4);

  /** @param pollDeposit reads the deposit's record and applies it (a poll, and the look a deposit hint asks for) */
  constructor(
    private readonly depositId: string,
    private readonly ledger: DepositLedger,
    private readonly pollDeposit: () => Promise<void>,
  ) {}

  noteDeposit(record: Hint): void {
    if (record.id === this.depositId) this.depositHints.note(record);
  }

  noteTrade(record: Hint): void {
    this.tradeHints.note(record);
  }

  notePayment(record: Hint): void {
    this.paymentHints.note(record);
  }

  /** A hint is news when it claims what the service has not told the deposit yet. */
  private depositHintIsNews(): boolean {
    const { ledger } = this;
    const claim = this.depositHints.claimFor(this.depositId);
    // A trade the service links to this deposit already says the deposit was confirmed.
    return claim !== undefined && ledger.deposit !== undefined && ledger.trade === undefined && claim !== ledger.deposit.status && advancesDeposit(ledger.deposit.status, claim);
  }

  private readonly tradeHintIsNews = (id: string): boolean => {
    const { ledger } = this;
    const claim = this.tradeHints.claimFor(id)!;
    return ledger.trade === undefined || (id === ledger.trade.id && claim !== ledger.trade.status && advancesTrade(ledger.trade.status, claim));
  };

  private readonly paymentHintIsNews = (id: string): boolean =>
    this.ledger.state.kind === 'OFFRAMP' && (this.ledger.payment === undefined || (id === this.ledger.payment.id && !isPaymentSettled(this.ledger.payment.status)));

  private newest(hints: PendingHints, isNews: (id: string) => boolean): string | undefined {
    return hints.ids().filter(isNews).at(-1);
  }

  readonly claimNews = (): boolean =>
    this.newest(this.paymentHints, this.paymentHintIsNews) !== undefined || this.newest(this.tradeHints, this.tradeHintIsNews) !== undefined || this.depositHintIsNews();

  /**
   * Answers the furthest claim with one read: a payment (and, when the deposit holds no trade yet, the
   * trade its reference names), else a trade, else the deposit itself. What the service says is taken
   * only when it links the record to this deposit.
   */
  readonly look = async (): Promise<void> => {
    const { ledger } = this;
    const paymentId = this.newest(this.paymentHints, this.paymentHintIsNews);
    if (paymentId !== undefined) {
      this.paymentHints.clear(paymentId);
      const record = await readNamed('payment', () => act.getPayment.executeWithOptions(readOptions('read the payment a delivery named'), [paymentId, { confirming: true }]));
      const ownTrade = ledger.trade ?? (record?.reference ? await this.verifyTrade(record.reference) : undefined);
      if (record && !(ownTrade && paymentNamesTrade(record, ownTrade.id))) return countIgnoredHint('depositLifecycle', 'payment-of-another-trade');
      if (record) ledger.applyPayment(record);
      return;
    }
    const tradeId = this.newest(this.tradeHints, this.tradeHintIsNews);
    if (tradeId !== undefined) {
      this.tradeHints.clear(tradeId);
      await this.verifyTrade(tradeId);
      return;
    }
    if (this.depositHintIsNews()) {
      this.depositHints.clear(this.depositId);
      await this.pollDeposit();
    }
  };

  /** Reads a trade a delivery named; takes it only when the service's record names this deposit. */
  private async verifyTrade(tradeId: string): Promise<TradeRecord | undefined> {
    const record = await readNamed('trade', () => act.getTrade.executeWithOptions(readOptions('read the trade a delivery named'), [tradeId, { confirming: true }]));
    if (!record) return undefined;
    if (!tradeNamesDeposit(record, this.depositId)) {
      countIgnoredHint('depositLifecycle', 'trade-of-another-deposit');
      return undefined;
    }
    this.ledger.applyTrade(record);
    return this.ledger.trade === record ? record : undefined;
  }
}

/**
 * A read of a record a delivery named: one the service does not have, or refuses to look up (a
 * made-up id), is a hint to ignore, never a reason to park. A failing service is left to the caller
 * (a poll tolerates it; the next hint or poll looks again).
 */
async function readNamed<T>(what: 'trade' | 'payment', read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (!isAbsent(error)) throw error;
    countIgnoredHint('depositLifecycle', `${what}-not-found`);
    return undefined;
  }
}
