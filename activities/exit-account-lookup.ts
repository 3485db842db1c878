/**
 * How the service's record of a customer's exit account is found: a wallet by address (and network,
 * when known), a bank account by account number. Shared by the look-up the journey polls with and by
 * the look-up-before-create of the journey's own registration.
 *
 * Each candidate must name the journey's customer itself (its own `customerId`), not only come from a
 * list asked for that customer: the filter is our request, the record is the service's word. A
 * service that ignored or widened the filter would otherwise hand the journey another customer's
 * account with the same address or number, and the journey's onramp or offramp would be built on it.
 */
import type { RampClient } from '../ramp';

/** Hex (0x) addresses are case-insensitive (the case is only a checksum); base58 ones are not. */
function sameAddress(a: string, b: string): boolean {
  return a.startsWith('0x') && b.startsWith('0x') ? a.toLowerCase() === b.toLowerCase() : a === b;
}

export interface CryptoAddressLookup {
  customerId: string;
  address: string;
  network?: string;
}

export interface BankAccountLookup {
  customerId: string;
  accountNo: string;
}

export async function findCryptoAddressId(ramp: RampClient, lookup: CryptoAddressLookup): Promise<string | null> {
  for await (const candidate of ramp.cryptoAddresses.iterate({ customerId: lookup.customerId, pageSize: 100 })) {
    if (candidate.customerId !== lookup.customerId) continue;
    const sameNetwork = !lookup.network || candidate.network === lookup.network;
    if (sameNetwork && sameAddress(candidate.address, lookup.address)) return candidate.id;
  }
  return null;
}

export async function findBankAccountId(ramp: RampClient, lookup: BankAccountLookup): Promise<string | null> {
  for await (const candidate of ramp.bankAccounts.iterate({ customerId: lookup.customerId, pageSize: 100 })) {
    if (candidate.customerId === lookup.customerId && candidate.accountNo === lookup.accountNo) return candidate.id;
  }
  return null;
}
