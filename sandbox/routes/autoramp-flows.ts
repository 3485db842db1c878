/**
 * Autoramp flow endpoints (interface: "Autoramp flows"). `from` and `to` of create are record ids.
 * The onramp's `to` is the id of the crypto address (the exit) and the offramp's `to` the id of the
 * bank account. An AUD onramp may carry `from.whitelist` (same shape as virtual-account/create's
 * `whitelist`), passed on to the virtual account it creates: the interface does not say how an
 * onramp's AUD account gets its whitelisted sender, and this keeps both routes to one behaviour.
 */
import { z } from 'zod';
import type { DomainContext } from '../domain/context';
import { createFlow, createOfframp, createOnramp, deleteFlow } from '../domain/autoramp-flows';
import { notFound } from '../http/errors';
import { paginate } from '../http/query';
import {
  CryptoCurrencySchema,
  FiatCurrencySchema,
  IdBody,
  NetworkSchema,
  SourceAccountSchema,
  toSourceAccount,
} from '../http/request-schemas';
import { jsonBody, type RouteDefinition } from '../http/route';

const FLOW_TYPES = ['ONRAMP', 'OFFRAMP'] as const;
const FLOW_STATUSES = ['ENABLED', 'DISABLED'] as const;

const CreateFlowBody = z.object({ type: z.enum(FLOW_TYPES), from: z.string().min(1), to: z.string().min(1) });

// Since release 2026-03-27 there is no top-level customerId; z.strictObject rejects the old shape.
const OnrampBody = z.strictObject({
  from: z.object({
    customerId: z.string().min(1),
    currency: FiatCurrencySchema,
    whitelist: SourceAccountSchema.optional(),
  }),
  to: z.string().min(1),
});

const OfframpBody = z.strictObject({
  from: z.object({ customerId: z.string().min(1), currency: CryptoCurrencySchema, network: NetworkSchema }),
  to: z.string().min(1),
});

export function autorampFlowRoutes(ctx: DomainContext): RouteDefinition[] {
  const { store, views } = ctx;
  return [
    {
      method: 'POST',
      path: '/autoramp-flow/create',
      handler: (request) => ({ id: createFlow(ctx, request.partnerId, jsonBody(request, CreateFlowBody)).id }),
    },
    {
      method: 'POST',
      path: '/autoramp-flow/onramp',
      handler: (request) => {
        const { from, to } = jsonBody(request, OnrampBody);
        const whitelist = from.whitelist === undefined ? undefined : toSourceAccount(from.whitelist);
        return {
          id: createOnramp(ctx, request.partnerId, {
            customerId: from.customerId,
            currency: from.currency,
            whitelist,
            to,
          }).id,
        };
      },
    },
    {
      method: 'POST',
      path: '/autoramp-flow/offramp',
      handler: (request) => {
        const { from, to } = jsonBody(request, OfframpBody);
        return { id: createOfframp(ctx, request.partnerId, { ...from, to }).id };
      },
    },
    {
      method: 'GET',
      path: '/autoramp-flow/list',
      handler: ({ partnerId, query }) => {
        const type = query.oneOf('type', FLOW_TYPES);
        const status = query.oneOf('status', FLOW_STATUSES);
        const rows = store.flows.list(
          partnerId,
          (row) => (type === undefined || row.type === type) && (status === undefined || row.status === status),
        );
        return paginate(query, ctx.listed(rows), (row) => views.autorampFlow(row));
      },
    },
    {
      method: 'GET',
      path: '/autoramp-flow/detail',
      handler: ({ partnerId, query }) => {
        const flow = store.flows.find(partnerId, query.required('id'));
        if (flow === undefined) throw notFound('autoramp flow');
        return views.autorampFlow(flow);
      },
    },
    {
      method: 'POST',
      path: '/autoramp-flow/delete',
      handler: (request) => ({ id: deleteFlow(ctx, request.partnerId, jsonBody(request, IdBody).id).id }),
    },
  ];
}
