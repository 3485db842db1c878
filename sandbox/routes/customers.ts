/** Customer endpoints (interface: "Customers"). */
import { z } from 'zod';
import type { DomainContext } from '../domain/context';
import { createCustomer } from '../domain/customers';
import { invalidParameters, notFound } from '../http/errors';
import { paginate } from '../http/query';
import { jsonBody, type RouteDefinition } from '../http/route';

const CreateCustomerBody = z.object({
  realName: z.string().min(1).optional(),
  email: z.email().optional(),
  externalId: z.string().min(1).max(128).optional(),
});

export function customerRoutes(ctx: DomainContext): RouteDefinition[] {
  const { store, views } = ctx;
  return [
    {
      method: 'POST',
      path: '/customer/create',
      handler: (request) => views.customer(createCustomer(ctx, request.partnerId, jsonBody(request, CreateCustomerBody))),
    },
    {
      // By `id`, or by the partner's own `externalId` (interface: "optional query externalId").
      method: 'GET',
      path: '/customer/detail',
      handler: ({ partnerId, query }) => {
        const id = query.optional('id');
        const externalId = query.optional('externalId');
        if (id === undefined && externalId === undefined) throw invalidParameters('query parameter id or externalId is required');
        const customer =
          id !== undefined
            ? store.customers.find(partnerId, id)
            : store.customers.list(partnerId, (candidate) => candidate.externalId === externalId)[0];
        if (customer === undefined || (externalId !== undefined && customer.externalId !== externalId)) throw notFound('customer');
        return views.customer(customer);
      },
    },
    {
      method: 'GET',
      path: '/customer/list',
      handler: ({ partnerId, query }) => paginate(query, store.customers.list(partnerId), (customer) => views.customer(customer)),
    },
  ];
}
