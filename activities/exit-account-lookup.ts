/**
 * How the service's record of a customer's exit account is found: a wallet by address (and network,
 * when known), a bank account by account number. Shared by the look-up the journey polls with and by
 * the look-up-before-create of the journey's own registration.
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
    const sameNetwork = !lookup.network || candidate.network === lookup.network;
    if (sameNetwork && sameAddress(candidate.address, lookup.address)) return candidate.id;
  }
  return null;
}

export async function findBankAccountId(ramp: RampClient, lookup: BankAccountLookup): Promise<string | null> {
  for await (const candidate of ramp.bankAccounts.iterate({ customerId: lookup.customerId, pageSize: 100 })) {
    if (candidate.accountNo === lookup.accountNo) return candidate.id;
  }
  return null;
}
