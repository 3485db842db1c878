/**
 * What a journey tells the partner's product (partner-events/catalogue.ts), in the journey's words:
 * each method is called where the journey has just established the fact from the service's own
 * record (the customer it created or read, the accounts it read, a deposit's report, which the
 * deposit workflow sends only after reading its own record).
 */
import type { DepositProgress, DepositStage, JourneyState } from '../common/messages';
import { PartnerEventOutbox, type CarriedOutbox } from '../partner-events/outbox';

/** The deposit stages the partner hears of; the steps between are the deposit's own business. */
const DEPOSIT_EVENTS = {
  ACTION_REQUIRED: 'deposit.action_required',
  COMPLETED: 'deposit.completed',
  REJECTED: 'deposit.rejected',
  REVERSED: 'deposit.reversed',
} as const satisfies Partial<Record<DepositStage, string>>;

export class JourneyEvents {
  readonly outbox: PartnerEventOutbox;

  constructor(externalId: string, carried?: CarriedOutbox) {
    this.outbox = new PartnerEventOutbox({ externalId }, carried);
  }

  /** The customer exists at the service and has a KYC link to open. */
  kycRequired(state: JourneyState): void {
    if (state.customer.kycLink) this.outbox.emitOnce('journey.kyc_required', { kycLink: state.customer.kycLink });
  }

  approved(): void {
    this.outbox.emitOnce('journey.approved', {});
  }

  /** The receiving accounts are approved: their details, as the service's detail reads gave them. */
  accountsReady(state: JourneyState): void {
    const va = state.onramp?.virtualAccount;
    const da = state.offramp?.depositAddress;
    this.outbox.emitOnce('journey.accounts_ready', {
      ...(va ? { virtualAccount: pick(va, ['id', 'currency', 'accountNumber', 'bicSwift', 'payId', 'bankName']) } : {}),
      ...(da ? { depositAddress: pick(da, ['id', 'address', 'network', 'currency']) } : {}),
    });
  }

  active(): void {
    this.outbox.emitOnce('journey.active', {});
  }

  parked(stage: string, reason: string): void {
    this.outbox.emit('journey.needs_attention', { stage, reason });
  }

  resumed(stage: string): void {
    this.outbox.emit('journey.resumed', { stage });
  }

  ended(stage: 'REJECTED' | 'CLOSED', reason: string): void {
    if (stage === 'REJECTED') this.outbox.emitOnce('journey.rejected', { reason });
    else this.outbox.emitOnce('journey.closed', { reason });
  }

  /** A deposit's report the board counted as news: first sight, then the stages the partner hears of. */
  depositProgress({ summary, previousStage }: DepositProgress): void {
    const facts = {
      depositId: summary.depositId,
      kind: summary.kind,
      amount: summary.amount,
      currency: summary.currency,
    };
    if (previousStage === undefined) this.outbox.emit('deposit.received', facts);
    switch (summary.stage) {
      case 'ACTION_REQUIRED':
      case 'REJECTED':
        this.outbox.emit(DEPOSIT_EVENTS[summary.stage], facts);
        break;
      case 'COMPLETED':
        this.outbox.emit(DEPOSIT_EVENTS.COMPLETED, {
          ...facts,
          ...(summary.tradeId ? { tradeId: summary.tradeId } : {}),
          ...(summary.paymentId ? { paymentId: summary.paymentId } : {}),
        });
        break;
      case 'REVERSED':
        this.outbox.emit(DEPOSIT_EVENTS.REVERSED, { ...facts, after: previousStage ?? 'COMPLETED' });
        break;
      default:
    }
  }
}

/** Only the named fields that are set: an event carries what the partner needs and no more. */
function pick<T extends object, K extends keyof T>(record: T, keys: readonly K[]): Pick<T, K> {
  const picked = {} as Pick<T, K>;
  for (const key of keys) if (record[key] !== undefined) picked[key] = record[key];
  return picked;
}
