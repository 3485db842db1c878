/**
 * Virtual accounts (fiat entries) and deposit addresses (crypto entries).
 *
 * Virtual account: PENDING → VERIFIED | REJECTED (DESIGN). Banking details are issued on
 * verification. An AUD account created with a `whitelist` object gets that source account registered
 * as a whitelisted sender a short while after approval (interface: "Virtual account (AUD, created with
 * a whitelist object)"); accounts added with create-aud-whitelist likewise start `pending` and turn
 * `active` after the same delay. Only active entries may send into an AUD account.
 *
 * Deposit address: PENDING → APPROVED | REJECTED. The address is generated at creation.
 */
import type { CryptoCurrency, FiatCurrency, Network } from '../currencies';
import { failed, invalidParameters } from '../http/errors';
import { newAccountNumber, newBsbNumber, newChainAddress, newId } from '../identifiers';
import type { DepositAddressRecord, SourceAccount, VirtualAccountRecord, WhitelistEntry } from '../state/records';
import { requireStatus, type DomainContext } from './context';

export interface NewVirtualAccount {
  customerId: string;
  currency: FiatCurrency;
  whitelist?: SourceAccount | undefined;
}

export function createVirtualAccount(
  ctx: DomainContext,
  partnerId: string,
  input: NewVirtualAccount,
): VirtualAccountRecord {
  ctx.requireCustomer(partnerId, input.customerId, true);
  const now = ctx.now();
  const account = ctx.store.virtualAccounts.insert({
    id: newId(),
    partnerId,
    customerId: input.customerId,
    currency: input.currency,
    status: 'PENDING',
    accountNumber: null,
    bsbNumber: null,
    payId: null,
    // The whitelist object "has no effect for other currencies" than AUD.
    requestedWhitelist: input.currency === 'AUD' ? (input.whitelist ?? null) : null,
    whitelist: [],
    createTime: now,
    updateTime: now,
  });
  ctx.changed({ kind: 'virtualAccount', partnerId, id: account.id });
  return account;
}

function findVirtualAccount(ctx: DomainContext, partnerId: string, id: string): VirtualAccountRecord {
  const account = ctx.store.virtualAccounts.find(partnerId, id);
  if (account === undefined) throw failed('virtual account not found');
  return account;
}

/** The banking provider confirms the account: details issued, VIRTUAL_ACCOUNT_APPROVED fired. */
export function approveVirtualAccount(ctx: DomainContext, partnerId: string, id: string): VirtualAccountRecord {
  const account = findVirtualAccount(ctx, partnerId, id);
  requireStatus('virtual account', account.status, ['PENDING'], 'approve');
  account.status = 'VERIFIED';
  account.accountNumber = newAccountNumber();
  account.payId = `${account.accountNumber}@payid.sandbox.example`;
  if (account.currency === 'AUD') account.bsbNumber = newBsbNumber();
  account.updateTime = ctx.now();
  ctx.emit(partnerId, account.customerId, 'VIRTUAL_ACCOUNT_APPROVED', ctx.views.virtualAccount(account));
  ctx.changed({ kind: 'virtualAccount', partnerId, id });
  if (account.requestedWhitelist !== null) addWhitelistEntry(ctx, account, account.requestedWhitelist);
  return account;
}

export function rejectVirtualAccount(ctx: DomainContext, partnerId: string, id: string): VirtualAccountRecord {
  const account = findVirtualAccount(ctx, partnerId, id);
  requireStatus('virtual account', account.status, ['PENDING'], 'reject');
  account.status = 'REJECTED';
  account.updateTime = ctx.now();
  ctx.emit(partnerId, account.customerId, 'VIRTUAL_ACCOUNT_REJECTED', ctx.views.virtualAccount(account));
  ctx.changed({ kind: 'virtualAccount', partnerId, id });
  return account;
}

/** An AUD account's whitelist, looked up by the partner (interface: get-aud-whitelist, AUD only). */
export function audWhitelistOf(ctx: DomainContext, partnerId: string, id: string): WhitelistEntry[] {
  const account = findVirtualAccount(ctx, partnerId, id);
  if (account.currency !== 'AUD') throw invalidParameters('the whitelist exists for AUD virtual accounts only');
  return account.whitelist;
}

/** POST /virtual-account/create-aud-whitelist: the server sets the status (pending, then active). */
export function requestWhitelistEntry(
  ctx: DomainContext,
  partnerId: string,
  id: string,
  source: SourceAccount,
): WhitelistEntry {
  const account = findVirtualAccount(ctx, partnerId, id);
  if (account.currency !== 'AUD') throw invalidParameters('the whitelist exists for AUD virtual accounts only');
  requireStatus('virtual account', account.status, ['PENDING', 'VERIFIED'], 'whitelist a sender for');
  return addWhitelistEntry(ctx, account, source);
}

/** POST /virtual-account/update-aud-whitelist: a new source account for an entry, pending again until the provider registers it. */
export function replaceWhitelistEntry(
  ctx: DomainContext,
  partnerId: string,
  id: string,
  entryId: number,
  source: SourceAccount,
): WhitelistEntry {
  const account = findVirtualAccount(ctx, partnerId, id);
  if (account.currency !== 'AUD') throw invalidParameters('the whitelist exists for AUD virtual accounts only');
  const entry = account.whitelist.find((candidate) => candidate.id === entryId);
  if (entry === undefined) throw failed('whitelist entry not found');
  Object.assign(entry, source, { accountStatus: 'pending' });
  ctx.clock.schedule(ctx.now() + ctx.options.audWhitelistDelaySeconds * 1000, 'AUD whitelist registration', () => {
    entry.accountStatus = 'active';
  });
  return entry;
}

function addWhitelistEntry(ctx: DomainContext, account: VirtualAccountRecord, source: SourceAccount): WhitelistEntry {
  const existing = account.whitelist.find(
    (entry) => entry.bsbNumber === source.bsbNumber && entry.accountNumber === source.accountNumber,
  );
  if (existing !== undefined) return existing;
  const entry: WhitelistEntry = { ...source, id: ctx.store.nextWhitelistEntryId(), accountStatus: 'pending' };
  account.whitelist.push(entry);
  ctx.clock.schedule(ctx.now() + ctx.options.audWhitelistDelaySeconds * 1000, 'AUD whitelist registration', () => {
    entry.accountStatus = 'active';
  });
  return entry;
}

/** True when the sender may pay into this AUD account. */
export function isWhitelistedSender(
  account: VirtualAccountRecord,
  bsbNumber: string | null,
  accountNumber: string,
): boolean {
  return account.whitelist.some(
    (entry) =>
      entry.accountStatus === 'active' && entry.bsbNumber === bsbNumber && entry.accountNumber === accountNumber,
  );
}

export interface NewDepositAddress {
  customerId: string;
  currency: CryptoCurrency;
  network: Network;
}

export function createDepositAddress(
  ctx: DomainContext,
  partnerId: string,
  input: NewDepositAddress,
): DepositAddressRecord {
  ctx.requireCustomer(partnerId, input.customerId, true);
  const now = ctx.now();
  const address = ctx.store.depositAddresses.insert({
    id: newId(),
    partnerId,
    customerId: input.customerId,
    currency: input.currency,
    network: input.network,
    address: newChainAddress(input.network),
    status: 'PENDING',
    createTime: now,
    updateTime: now,
  });
  ctx.changed({ kind: 'depositAddress', partnerId, id: address.id });
  return address;
}

function settleDepositAddress(
  ctx: DomainContext,
  partnerId: string,
  id: string,
  status: 'APPROVED' | 'REJECTED',
): DepositAddressRecord {
  const address = ctx.store.depositAddresses.find(partnerId, id);
  if (address === undefined) throw failed('deposit address not found');
  requireStatus('deposit address', address.status, ['PENDING'], status === 'APPROVED' ? 'approve' : 'reject');
  address.status = status;
  address.updateTime = ctx.now();
  ctx.emit(
    partnerId,
    address.customerId,
    status === 'APPROVED' ? 'DEPOSIT_ADDRESS_APPROVED' : 'DEPOSIT_ADDRESS_REJECTED',
    ctx.views.depositAddress(address),
  );
  ctx.changed({ kind: 'depositAddress', partnerId, id });
  return address;
}

export function approveDepositAddress(ctx: DomainContext, partnerId: string, id: string): DepositAddressRecord {
  return settleDepositAddress(ctx, partnerId, id, 'APPROVED');
}

export function rejectDepositAddress(ctx: DomainContext, partnerId: string, id: string): DepositAddressRecord {
  return settleDepositAddress(ctx, partnerId, id, 'REJECTED');
}
