/**
 * A deposit's hints (workflows/common/trust.ts): what deliveries claim about the deposit, its trade and its
 * payment, waiting for a look through the service. A claim is looked at only when it is news, and
 * what the service says is taken only when it links the record to this deposit.
 */
import { depositActivities as act } from './service-calls';
import type { DepositLedger } from './ledger';
import { readOptions } from '../common/activity-options';
import type { TradeRecord } from '../common/records';
import { isPaymentSettled } from '../common/records';
import { isAbsent } from '../common/service-failures';
import { advancesDeposit, advancesTrade } from '../common/status-order';
import { countIgnoredHint } from '../common/trust-metrics';
import { HINTS_NEVER_DELAY_FACTS, takesPatch } from '../common/patches';
import { paymentNamesTrade, PendingHints, tradeNamesDeposit, type CarriedHints, type Hint } from '../common/trust';

/** What a deposit's hints hand to its next run (workflows/deposit/carry.ts). */
export interface CarriedDepositHints {
  deposit: CarriedHints;
  trade: CarriedHints;
  payment: CarriedHints;
}

export class DepositHints {
  private readonly depositHints: PendingHints;
  private readonly tradeHints: PendingHints;
  private readonly paymentHints: PendingHints;

  /**
   * @param pollDeposit reads the deposit's record and applies it (a poll, and the look a deposit hint asks for)
   * @param carried what the previous run's hints held, when this run continued it
   */
  constructor(
    private readonly depositId: string,
    private readonly ledger: DepositLedger,
    private readonly pollDeposit: () => Promise<void>,
    carried?: CarriedDepositHints,
  ) {
    // Asked once, at the run's first hint (the same hint on replay): first come from HINTS_NEVER_DELAY_FACTS on.
    let firstCome: boolean | undefined;
    const chooseFirstCome = (): boolean => (firstCome ??= takesPatch(HINTS_NEVER_DELAY_FACTS));
    this.depositHints = new PendingHints(1, chooseFirstCome, carried?.deposit);
    this.tradeHints = new PendingHints(4, chooseFirstCome, carried?.trade);
    this.paymentHints = new PendingHints(4, chooseFirstCome, carried?.payment);
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

  /** A hint is news when it claims what the service has not told the deposit yet. */
  private depositHintIsNews(): boolean {
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

  readonly claimNews = (): boolean =>
    this.paymentHints.next(this.paymentHintIsNews) !== undefined ||
    this.tradeHints.next(this.tradeHintIsNews) !== undefined ||
    this.depositHintIsNews();

  /**
   * Answers the furthest claim with one read (the oldest such hint under first come, else the newest): a payment (and, when the deposit holds no trade yet, the
   * trade its reference names), else a trade, else the deposit itself. What the service says is taken
   * only when it links the record to this deposit.
   */
  readonly look = async (): Promise<void> => {
    const { ledger } = this;
    const paymentId = this.paymentHints.next(this.paymentHintIsNews);
    if (paymentId !== undefined) {
      this.paymentHints.clear(paymentId);
      const record = await readNamed('payment', () =>
        act.getPayment.executeWithOptions(readOptions('read the payment a delivery named'), [
          paymentId,
          { confirming: true },
        ]),
      );
      if (!record) return this.paymentHints.refuse(paymentId);
      const ownTrade = ledger.trade ?? (record.reference ? await this.verifyTrade(record.reference) : undefined);
      if (!(ownTrade && paymentNamesTrade(record, ownTrade.id))) {
        this.paymentHints.refuse(paymentId);
        return countIgnoredHint('depositLifecycle', 'payment-of-another-trade');
      }
      ledger.applyPayment(record);
      return;
    }
    const tradeId = this.tradeHints.next(this.tradeHintIsNews);
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
    const record = await readNamed('trade', () =>
      act.getTrade.executeWithOptions(readOptions('read the trade a delivery named'), [tradeId, { confirming: true }]),
    );
    if (!record) {
      this.tradeHints.refuse(tradeId);
      return undefined;
    }
    if (!tradeNamesDeposit(record, this.depositId)) {
      this.tradeHints.refuse(tradeId);
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
