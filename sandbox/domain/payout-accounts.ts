/**
 * The customer's own accounts: bank accounts (offramp and payout exits) and crypto addresses (onramp
 * exits), registered through POST /bank-account/add and /crypto-address/add.
 */
import type { CryptoCurrency, FiatCurrency, Network } from '../currencies';
import { newId } from '../identifiers';
import type { BankAccountRecord, CryptoAddressRecord } from '../state/records';
import type { DomainContext } from './context';

export interface NewBankAccount {
  customerId: string;
  currency: FiatCurrency;
  bankName: string;
  accountNo: string;
  swift: string;
  beneficiaryName?: string | undefined;
  beneficiaryAddress?: string | undefined;
  bankCountry?: string | undefined;
  bankAddress?: string | undefined;
}

export function createBankAccount(ctx: DomainContext, partnerId: string, input: NewBankAccount): BankAccountRecord {
  const customer = ctx.requireCustomer(partnerId, input.customerId, false);
  const now = ctx.now();
  return ctx.store.bankAccounts.insert({
    id: newId(),
    partnerId,
    customerId: input.customerId,
    currency: input.currency,
    bankName: input.bankName,
    accountNo: input.accountNo,
    swift: input.swift,
    beneficiaryName: input.beneficiaryName ?? customer.realName ?? '',
    beneficiaryAddress: input.beneficiaryAddress ?? '',
    bankCountry: input.bankCountry ?? '',
    bankAddress: input.bankAddress ?? '',
    createTime: now,
    updateTime: now,
  });
}

export interface NewCryptoAddress {
  customerId: string;
  currency: CryptoCurrency;
  network: Network;
  address: string;
  label?: string | undefined;
}

export function createCryptoAddress(
  ctx: DomainContext,
  partnerId: string,
  input: NewCryptoAddress,
): CryptoAddressRecord {
  ctx.requireCustomer(partnerId, input.customerId, false);
  const now = ctx.now();
  return ctx.store.cryptoAddresses.insert({
    id: newId(),
    partnerId,
    customerId: input.customerId,
    currency: input.currency,
    address: input.address,
    label: input.label ?? '',
    network: input.network,
    createTime: now,
    updateTime: now,
  });
}
