/**
 * Deposit address endpoints (interface: "Endpoints that exist": create, list, detail; shapes not
 * shown). Create takes the same `customerId`, `currency` and `network` as the offramp's `from`.
 */
import { z } from 'zod';
import type { DomainContext } from '../domain/context';
import { createDepositAddress } from '../domain/receiving-accounts';
import { notFound } from '../http/errors';
import { paginate } from '../http/query';
import { CryptoCurrencySchema, NetworkSchema } from '../http/request-schemas';
import { jsonBody, type RouteDefinition } from '../http/route';

const CreateDepositAddressBody = z.object({
  customerId: z.string().min(1),
  currency: CryptoCurrencySchema,
  network: NetworkSchema,
});

const DEPOSIT_ADDRESS_STATUSES = ['PENDING', 'APPROVED', 'REJECTED'] as const;

export function depositAddressRoutes(ctx: DomainContext): RouteDefinition[] {
  const { store, views } = ctx;
  return [
    {
      method: 'POST',
      path: '/deposit-address/create',
      handler: (request) =>
        views.depositAddress(createDepositAddress(ctx, request.partnerId, jsonBody(request, CreateDepositAddressBody))),
    },
    {
      method: 'GET',
      path: '/deposit-address/detail',
      handler: ({ partnerId, query }) => {
        const address = store.depositAddresses.find(partnerId, query.required('id'));
        if (address === undefined) throw notFound('deposit address');
        return views.depositAddress(address);
      },
    },
    {
      method: 'GET',
      path: '/deposit-address/list',
      handler: ({ partnerId, query }) => {
        const customerId = query.optional('customerId');
        const currency = query.optional('currency');
        const status = query.oneOf('status', DEPOSIT_ADDRESS_STATUSES);
        const rows = store.depositAddresses.list(
          partnerId,
          (row) =>
            (customerId === undefined || row.customerId === customerId) &&
            (currency === undefined || row.currency === currency) &&
            (status === undefined || row.status === status),
        );
        return paginate(query, rows, (row) => views.depositAddress(row));
      },
    },
  ];
}
