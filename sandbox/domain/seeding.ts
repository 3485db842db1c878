/**
 * Many records at once, for benchmarks of what grows with the number of customers (reconciliation):
 * customers as the service holds them after KYC, and deposits received for the newest of them, put
 * straight into the store. Nothing is announced (no event, no change for the autopilot): these are
 * records rampflow has to find by itself. One call instead of 100,000 signed creates.
 */
import { parseDecimal } from '../decimal';
import { newBankReference, newId } from '../identifiers';
import type { DomainContext } from './context';

export interface SeedRequest {
  /** Customers to add, APPROVED, with externalIds `<externalIdPrefix><n>`. */
  customers: number;
  externalIdPrefix: string;
  /** Deposits to add, one each for the partner's newest customers, RECEIVED (AUD, no virtual account). */
  deposits: number;
}

export function seedRecords(ctx: DomainContext, partnerId: string, request: SeedRequest): { customers: number; deposits: number } {
  const now = ctx.now();
  for (let n = 0; n < request.customers; n++) {
    ctx.store.customers.insert({ id: newId(), partnerId, realName: null, email: null, externalId: `${request.externalIdPrefix}${n}`, status: 'APPROVED', createTime: now, updateTime: now });
  }
  const owners = request.deposits > 0 ? ctx.store.customers.list(partnerId).slice(-request.deposits) : [];
  for (const owner of owners) {
    ctx.store.deposits.insert({
      id: newId(),
      partnerId,
      customerId: owner.id,
      type: 'FIAT',
      currency: 'AUD',
      amount: parseDecimal('100.00'),
      sender: { kind: 'BANK', bsbNumber: '062000', accountNumber: '12345678', accountName: null },
      virtualAccountId: null,
      depositAddressId: null,
      txid: newBankReference(),
      txReference: '',
      status: 'RECEIVED',
      attachments: [],
      createTime: now,
      updateTime: now,
    });
  }
  return { customers: request.customers, deposits: owners.length };
}
