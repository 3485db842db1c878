/**
 * Many records at once, for benchmarks of what grows with the partner's size (reconciliation, the
 * look-ups that page a list): customers as the service holds them after KYC, deposits received for
 * the newest of them, and autoramp flows and trades of other customers, put straight into the
 * store. Nothing is announced (no event, no change for the autopilot): these are records rampflow
 * has to find by itself, or page past. One call instead of 100,000 signed creates.
 *
 * Lists answer in insertion order (oldest first, or reversed), so records seeded with an age should
 * be seeded before the ones a test creates: the list then stays ordered by creation time, as the
 * real service's would be.
 */
import { convert, rateOf } from '../currencies';
import { parseDecimal } from '../decimal';
import { newBankReference, newId } from '../identifiers';
import type { DomainContext } from './context';

export interface SeedRequest {
  /** Customers to add, APPROVED, with externalIds `<externalIdPrefix><n>`. */
  customers: number;
  externalIdPrefix: string;
  /** Deposits to add, one each for the partner's newest customers, RECEIVED (AUD, no virtual account). */
  deposits: number;
  /** Enabled autoramp flows to add, half onramps and half offramps, between entries and exits of no one's (other customers' flows). */
  flows: number;
  /** Settled trades to add, of `tradesCustomerId` (a customer with a long history) or of no one's. */
  trades: number;
  tradesCustomerId?: string;
  /** How long ago the seeded records were created (seconds; 0: now). */
  ageSeconds: number;
}

export interface SeedResult {
  customers: number;
  deposits: number;
  flows: number;
  trades: number;
}

export function seedRecords(ctx: DomainContext, partnerId: string, request: SeedRequest): SeedResult {
  const now = ctx.now() - request.ageSeconds * 1000;
  for (let n = 0; n < request.customers; n++) {
    ctx.store.customers.insert({
      id: newId(),
      partnerId,
      realName: null,
      email: null,
      externalId: `${request.externalIdPrefix}${n}`,
      status: 'APPROVED',
      createTime: now,
      updateTime: now,
    });
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
  for (let n = 0; n < request.flows; n++) {
    ctx.store.flows.insert({
      id: newId(),
      partnerId,
      customerId: newId(),
      type: n % 2 === 0 ? 'ONRAMP' : 'OFFRAMP',
      from: newId(),
      to: newId(),
      status: 'ENABLED',
      createTime: now,
      updateTime: now,
    });
  }
  const tradeAmount = parseDecimal('100.00');
  for (let n = 0; n < request.trades; n++) {
    ctx.store.trades.insert({
      id: newId(),
      partnerId,
      customerId: request.tradesCustomerId ?? newId(),
      flowId: newId(),
      depositId: newId(),
      fromCurrency: 'AUD',
      fromAmount: tradeAmount,
      toCurrency: 'USDT',
      toAmount: convert(tradeAmount, 'AUD', 'USDT'),
      rate: rateOf('AUD', 'USDT'),
      status: 'SETTLED',
      paymentId: null,
      createTime: now,
      updateTime: now,
    });
  }
  return { customers: request.customers, deposits: owners.length, flows: request.flows, trades: request.trades };
}
