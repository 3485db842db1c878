/**
 * The trust rule: only the service's own word moves money (DESIGN, "Trust").
 *
 * The service's webhooks are unsigned. The receiver's path token and source-IP list keep strangers
 * out, but a token leaks (proxy logs, the service's dashboard, a support ticket), so everything here
 * holds against someone who has it:
 *
 * - **A delivery wakes a workflow and carries hints; it never establishes a fact.** A record the
 *   receiver built from a payload (`RampEvent.fromPayload`) is a hint: which record to read, and what
 *   the sender claims about it. Only a signed read establishes a fact that the partner sees or that
 *   counts money: a customer's approval, a receiving account's details, a deposit's existence,
 *   amount, currency and owner, a trade's or payment's settlement, and every link between them.
 *   Records that rampflow read itself (the ramp-event workflow's re-read, reconciliation, a
 *   workflow's own activities) are facts.
 * - **Who owns a record is never learned from a payload**, only from a signed read or from rampflow's
 *   own records (a journey knows its customer's id; visibility has `RampCustomerId`).
 * - **Cheap and safe together.** A hint costs its target at most one read, and only when it claims
 *   something the target does not already know (`claimsNews`); hints that arrive while a read is under
 *   way are answered by the next read, not one each.
 *
 * This module holds the pieces every workflow applies the rule with: whether a delivered record is a
 * hint, the links a fact must show before it is taken, and the small box of pending hints a wait
 * looks at.
 */
import type { PaymentRecord, RampEvent, TradeRecord } from './records';

/**
 * Whether a delivered record is only a hint. Records built from a webhook's payload are; records
 * rampflow read through the signed API are facts.
 */
export function isHint(event: RampEvent<unknown>): boolean {
  return event.fromPayload === true;
}

/** A trade is this deposit's only when the service's record of the trade names the deposit. */
export function tradeNamesDeposit(trade: TradeRecord, depositId: string): boolean {
  return trade.depositId === depositId;
}

/** A payment pays out this deposit only when the service's record of it names the deposit's trade. */
export function paymentNamesTrade(payment: PaymentRecord, tradeId: string | undefined): boolean {
  return tradeId !== undefined && payment.reference === tradeId;
}

/** A wait's view of pending hints: whether one claims news, and the look that answers them. */
export interface Hints {
  pending: () => boolean;
  look: () => Promise<void>;
}

/** What a hint says: which record, and the status its sender claims for it. */
export interface Hint {
  id: string;
  status: string;
}

/** Ids a box keeps of the hints its reads refused, so that the same made-up id is not read again. */
export const REFUSED_HINTS_KEPT = 16;
/** Longer ids and statuses than any the service uses are made up: a first-come box does not take them, so what it carries stays small. */
export const HINT_FIELD_MAX_LENGTH = 128;

/** What a box of pending hints hands to the workflow's next run (continue-as-new): a few dozen ids at most. */
export interface CarriedHints {
  pending: Hint[];
  refused: string[];
}

/**
 * Hints waiting for a look, a few at most: one per record, the latest claim kept. A wait reads the
 * records named here (its `hints.look`, workflows/common/waiting.ts) and clears what it read; a hint about a record
 * the workflow does not hold (yet) waits here until it does, so a flood of made-up ids costs a fixed
 * amount of state.
 *
 * Two policies, chosen by the owner:
 * - **first come** (deposits): the owner reads the oldest first, a full box turns new
 *   ids away (the polls find what it turned away), and an id a read refused (the service does not
 *   have it, or it is not the workflow's) is not taken again. A burst of forged hints after a genuine
 *   one cannot push the genuine one out, and re-sending one made-up id costs nothing.
 * - **latest wins** (journeys): a new id is kept and the oldest dropped at the cap.
 */
export class PendingHints {
  private readonly hints = new Map<string, string>();
  private readonly refused: string[] = [];
  /** @param firstCome whether the box is first come (else latest wins) */
  constructor(
    private readonly cap = 8,
    private readonly firstCome = false,
    carried?: CarriedHints,
  ) {
    if (!carried) return;
    for (const hint of carried.pending.slice(0, cap)) this.hints.set(hint.id, hint.status);
    this.refused.push(...carried.refused.slice(-REFUSED_HINTS_KEPT));
  }

  note(hint: Hint): void {
    if (this.firstCome) {
      if (
        this.refused.includes(hint.id) ||
        hint.id.length > HINT_FIELD_MAX_LENGTH ||
        hint.status.length > HINT_FIELD_MAX_LENGTH
      )
        return;
      // A known id keeps its place with the latest claim; a new one waits only if there is room.
      if (this.hints.has(hint.id) || this.hints.size < this.cap) this.hints.set(hint.id, hint.status);
      return;
    }
    this.hints.delete(hint.id); // re-inserted last: the oldest is the one dropped at the cap
    this.hints.set(hint.id, hint.status);
    for (const id of [...this.hints.keys()].slice(0, -this.cap)) this.hints.delete(id);
  }

  /** The claimed status of a pending hint about `id`, if any. */
  claimFor(id: string | undefined): string | undefined {
    return id === undefined ? undefined : this.hints.get(id);
  }

  has(id: string | undefined): boolean {
    return id !== undefined && this.hints.has(id);
  }

  /** The record ids hinted at, oldest first. */
  ids(): string[] {
    return [...this.hints.keys()];
  }

  /** The id to read next among those `isNews` accepts: the oldest (first come) or the newest (latest wins). */
  next(isNews: (id: string) => boolean): string | undefined {
    const news = this.ids().filter(isNews);
    return this.firstCome ? news[0] : news.at(-1);
  }

  clear(id: string): void {
    this.hints.delete(id);
  }

  /** A read found the record absent or not the workflow's: under first come, hints about it are not taken again. */
  refuse(id: string): void {
    this.hints.delete(id);
    if (!this.firstCome || this.refused.includes(id)) return;
    this.refused.push(id);
    if (this.refused.length > REFUSED_HINTS_KEPT) this.refused.shift();
  }

  carry(): CarriedHints {
    return { pending: [...this.hints].map(([id, status]) => ({ id, status })), refused: [...this.refused] };
  }

  get size(): number {
    return this.hints.size;
  }
}
