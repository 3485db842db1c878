/**
 * Bank account and crypto address endpoints (interface: "Bank accounts", "Crypto addresses"; add and
 * bank-account detail from the real service). Adding answers the new record's view; adding the same
 * account twice makes a second record, as a service without idempotency keys does.
 */
import type { DomainContext } from '../domain/context';
import { createBankAccount, createCryptoAddress } from '../domain/payout-accounts';
import { CRYPTO_CURRENCIES, FIAT_CURRENCIES } from '../currencies';
import { notFound } from '../http/errors';
import { paginate } from '../http/query';
import { AddBankAccountBody, NewCryptoAddressBody } from '../http/request-schemas';
import { jsonBody, type RouteDefinition } from '../http/route';

export function payoutAccountRoutes(ctx: DomainContext): RouteDefinition[] {
  const { store, views } = ctx;
  return [
    {
      method: 'POST',
      path: '/bank-account/add',
      handler: (request) =>
        views.bankAccount(createBankAccount(ctx, request.partnerId, jsonBody(request, AddBankAccountBody))),
    },
    {
      method: 'GET',
      path: '/bank-account/detail',
      handler: ({ partnerId, query }) => {
        const account = store.bankAccounts.find(partnerId, query.required('id'));
        if (account === undefined) throw notFound('bank account');
        return views.bankAccount(account);
      },
    },
    {
      method: 'POST',
      path: '/crypto-address/add',
      handler: (request) =>
        views.cryptoAddress(createCryptoAddress(ctx, request.partnerId, jsonBody(request, NewCryptoAddressBody))),
    },
    {
      method: 'GET',
      path: '/bank-account/list',
      handler: ({ partnerId, query }) => {
        const customerId = query.optional('customerId');
        const currency = query.oneOf('currency', FIAT_CURRENCIES);
        const rows = store.bankAccounts.list(
          partnerId,
          (row) =>
            (customerId === undefined || row.customerId === customerId) &&
            (currency === undefined || row.currency === currency),
        );
        return paginate(query, rows, (row) => views.bankAccount(row));
      },
    },
    {
      method: 'GET',
      path: '/crypto-address/list',
      handler: ({ partnerId, query }) => {
        const customerId = query.optional('customerId');
        const currency = query.oneOf('currency', CRYPTO_CURRENCIES);
        const rows = store.cryptoAddresses.list(
          partnerId,
          (row) =>
            (customerId === undefined || row.customerId === customerId) &&
            (currency === undefined || row.currency === currency),
        );
        return paginate(query, rows, (row) => views.cryptoAddress(row));
      },
    },
    {
      // `id` is required; `customerId`, when given, must be the address's customer.
      method: 'GET',
      path: '/crypto-address/detail',
      handler: ({ partnerId, query }) => {
        const address = store.cryptoAddresses.find(partnerId, query.required('id'));
        const customerId = query.optional('customerId');
        if (address === undefined || (customerId !== undefined && address.customerId !== customerId))
          throw notFound('crypto address');
        return views.cryptoAddress(address);
      },
    },
  ];
}
