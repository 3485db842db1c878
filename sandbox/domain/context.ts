/**
 * What every state transition needs: the store, the clock, the event outbox, the views that make
 * event payloads, and the change feed the autopilot listens to.
 */
import type { EventName } from '../../ramp/events';
import type { VirtualClock } from '../clock';
import type { Currency } from '../currencies';
import type { Scaled } from '../decimal';
import type { Deliveries } from '../events/deliveries';
import { failed } from '../http/errors';
import type { CustomerRecord } from '../state/records';
import type { SandboxStore } from '../state/store';
import type { Views } from '../state/views';

export type ChangedKind = 'customer' | 'virtualAccount' | 'depositAddress' | 'deposit' | 'trade' | 'payment';

export interface Change {
  kind: ChangedKind;
  partnerId: string;
  id: string;
}

export interface DomainOptions {
  /** How long after a whitelisted AUD virtual account is approved its source account becomes whitelisted. */
  audWhitelistDelaySeconds: number;
  /** The order of the customer, deposit, trade and autoramp-flow lists (SandboxOptions.listOrder). */
  listOrder: 'oldest-first' | 'newest-first';
}

export class DomainContext {
  private readonly listeners: ((change: Change) => void)[] = [];

  constructor(
    readonly store: SandboxStore,
    readonly clock: VirtualClock,
    readonly views: Views,
    private readonly deliveries: Deliveries,
    readonly options: DomainOptions,
  ) {}

  /** Records (kept oldest first) in the order the list endpoints answer. */
  listed<T>(rows: T[]): T[] {
    return this.options.listOrder === 'newest-first' ? [...rows].reverse() : rows;
  }

  now(): number {
    return this.clock.now();
  }

  /** Records an event of `customerId`'s (whose events are delivered in the order they happened). */
  emit(
    partnerId: string,
    customerId: string,
    event: EventName,
    payload: { id: string } & Record<string, unknown>,
  ): void {
    this.deliveries.emit(partnerId, customerId, event, payload);
  }

  onChange(listener: (change: Change) => void): void {
    this.listeners.push(listener);
  }

  changed(change: Change): void {
    for (const listener of this.listeners) listener(change);
  }

  /** Moves a partner's balance; the interface reports one balance per currency. */
  adjustBalance(partnerId: string, currency: Currency, delta: Scaled): void {
    const balances = this.store.partner(partnerId).balances;
    balances.set(currency, (balances.get(currency) ?? 0n) + delta);
  }

  /**
   * The customer a new account, address or flow is for. The sandbox requires the customer to be
   * approved before receiving accounts are issued to it, as a regulated service would; bank accounts
   * and crypto addresses (the customer's own) only need the customer to exist.
   */
  requireCustomer(partnerId: string, customerId: string, mustBeApproved: boolean): CustomerRecord {
    const customer = this.store.customers.find(partnerId, customerId);
    if (customer === undefined || customer.status === 'DELETED') throw failed('customer not found');
    if (mustBeApproved && customer.status !== 'APPROVED') {
      throw failed(`customer is ${customer.status}; it must be APPROVED first`);
    }
    return customer;
  }
}

/** Guards a transition: the record must be in one of `from`, else the operation fails. */
export function requireStatus<S extends string>(
  resource: string,
  current: S,
  from: readonly S[],
  action: string,
): void {
  if (!from.includes(current)) throw failed(`cannot ${action} a ${resource} in status ${current}`);
}
