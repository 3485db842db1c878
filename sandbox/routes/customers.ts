/** Customer endpoints (interface: "Customers"). */
import { z } from 'zod';
import type { DomainContext } from '../domain/context';
import { createCustomer } from '../domain/customers';
import { invalidParameters, notFound } from '../http/errors';
import { readMultipart } from '../http/multipart';
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
      handler: (request) =>
        views.customer(createCustomer(ctx, request.partnerId, jsonBody(request, CreateCustomerBody))),
    },
    {
      // Multipart: the customer's fields as form fields and at least one identity document under
      // `files` (rampflow's assumption, ramp/assumptions.ts); the sandbox keeps only the documents' count.
      method: 'POST',
      path: '/customer/createWithFiles',
      handler: async ({ partnerId, rawBody, contentType }) => {
        const form = await readMultipart(rawBody, contentType);
        const documents = form.getAll('files').filter((part) => typeof part !== 'string');
        if (documents.length === 0)
          throw invalidParameters('at least one identity document (form field files) is required');
        const fields = Object.fromEntries(
          [...form.entries()].filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
        );
        const parsed = CreateCustomerBody.safeParse(fields);
        if (!parsed.success)
          throw invalidParameters(
            `${parsed.error.issues[0]?.path.join('.') ?? 'body'}: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
          );
        return views.customer(createCustomer(ctx, partnerId, parsed.data));
      },
    },
    {
      // By exactly one of `id`, the partner's own `externalId` (interface: "optional query externalId")
      // or the customer's `email` (the real service's third key).
      method: 'GET',
      path: '/customer/detail',
      handler: ({ partnerId, query }) => {
        const keys = {
          id: query.optional('id'),
          externalId: query.optional('externalId'),
          email: query.optional('email'),
        };
        const given = Object.entries(keys).filter(([, value]) => value !== undefined);
        if (given.length !== 1)
          throw invalidParameters('exactly one of the query parameters id, externalId and email is required');
        const customer =
          keys.id !== undefined
            ? store.customers.find(partnerId, keys.id)
            : store.customers.list(partnerId, (candidate) =>
                keys.externalId !== undefined
                  ? candidate.externalId === keys.externalId
                  : candidate.email === keys.email,
              )[0];
        if (customer === undefined) throw notFound('customer');
        return views.customer(customer);
      },
    },
    {
      method: 'GET',
      path: '/customer/list',
      handler: ({ partnerId, query }) =>
        paginate(query, ctx.listed(store.customers.list(partnerId)), (customer) => views.customer(customer)),
    },
  ];
}
