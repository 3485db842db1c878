/**
 * Autoramp flows: ONRAMP links a virtual account (entry) to a crypto address (exit); OFFRAMP links a
 * deposit address (entry) to a bank account (exit). Entry and exit must belong to the same customer,
 * and an entry feeds at most one enabled flow, so a deposit never has two trades.
 */
import type { CryptoCurrency, FiatCurrency, Network } from '../currencies';
import { failed, invalidParameters } from '../http/errors';
import { newId } from '../identifiers';
import type { AutorampFlowRecord, FlowType, SourceAccount } from '../state/records';
import type { DomainContext } from './context';
import { createDepositAddress, createVirtualAccount } from './receiving-accounts';

export function createFlow(
  ctx: DomainContext,
  partnerId: string,
  input: { type: FlowType; from: string; to: string },
): AutorampFlowRecord {
  const { store } = ctx;
  const entry =
    input.type === 'ONRAMP'
      ? store.virtualAccounts.find(partnerId, input.from)
      : store.depositAddresses.find(partnerId, input.from);
  if (entry === undefined)
    throw failed(`${input.type === 'ONRAMP' ? 'virtual account' : 'deposit address'} ${input.from} not found`);
  const exit =
    input.type === 'ONRAMP'
      ? store.cryptoAddresses.find(partnerId, input.to)
      : store.bankAccounts.find(partnerId, input.to);
  if (exit === undefined)
    throw failed(`${input.type === 'ONRAMP' ? 'crypto address' : 'bank account'} ${input.to} not found`);
  if (entry.customerId !== exit.customerId) throw invalidParameters('from and to belong to different customers');
  ctx.requireCustomer(partnerId, entry.customerId, true);
  if (store.flows.list(partnerId, (flow) => flow.from === input.from && flow.status === 'ENABLED').length > 0) {
    throw failed(`${input.from} already feeds an enabled autoramp flow`);
  }
  const now = ctx.now();
  return store.flows.insert({
    id: newId(),
    partnerId,
    customerId: entry.customerId,
    type: input.type,
    from: input.from,
    to: input.to,
    status: 'ENABLED',
    createTime: now,
    updateTime: now,
  });
}

/** Checks the exit before anything is created, so a bad request leaves no orphan entry behind. */
function requireExit(ctx: DomainContext, partnerId: string, type: FlowType, customerId: string, to: string): void {
  const exit =
    type === 'ONRAMP' ? ctx.store.cryptoAddresses.find(partnerId, to) : ctx.store.bankAccounts.find(partnerId, to);
  if (exit === undefined) throw failed(`${type === 'ONRAMP' ? 'crypto address' : 'bank account'} ${to} not found`);
  if (exit.customerId !== customerId) throw invalidParameters('to belongs to a different customer');
}

/** POST /autoramp-flow/onramp: a new virtual account as entry, then the flow to the crypto address. */
export function createOnramp(
  ctx: DomainContext,
  partnerId: string,
  input: { customerId: string; currency: FiatCurrency; whitelist?: SourceAccount | undefined; to: string },
): AutorampFlowRecord {
  ctx.requireCustomer(partnerId, input.customerId, true);
  requireExit(ctx, partnerId, 'ONRAMP', input.customerId, input.to);
  const entry = createVirtualAccount(ctx, partnerId, {
    customerId: input.customerId,
    currency: input.currency,
    whitelist: input.whitelist,
  });
  return createFlow(ctx, partnerId, { type: 'ONRAMP', from: entry.id, to: input.to });
}

/** POST /autoramp-flow/offramp: a new deposit address as entry, then the flow to the bank account. */
export function createOfframp(
  ctx: DomainContext,
  partnerId: string,
  input: { customerId: string; currency: CryptoCurrency; network: Network; to: string },
): AutorampFlowRecord {
  ctx.requireCustomer(partnerId, input.customerId, true);
  requireExit(ctx, partnerId, 'OFFRAMP', input.customerId, input.to);
  const entry = createDepositAddress(ctx, partnerId, {
    customerId: input.customerId,
    currency: input.currency,
    network: input.network,
  });
  return createFlow(ctx, partnerId, { type: 'OFFRAMP', from: entry.id, to: input.to });
}

/**
 * POST /autoramp-flow/delete. The interface has a DISABLED status and no other way to reach it, so
 * the sandbox reads delete as disable: the flow stays listed (status DISABLED) and stops trading.
 */
export function deleteFlow(ctx: DomainContext, partnerId: string, id: string): AutorampFlowRecord {
  const flow = ctx.store.flows.find(partnerId, id);
  if (flow === undefined) throw failed('autoramp flow not found');
  if (flow.status === 'DISABLED') throw failed('autoramp flow is already deleted');
  flow.status = 'DISABLED';
  flow.updateTime = ctx.now();
  return flow;
}
