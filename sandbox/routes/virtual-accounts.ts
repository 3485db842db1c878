/**
 * Virtual account endpoints (interface: "Virtual accounts"). `/virtual-account/detail` and
 * `/virtual-account/list` are not in the interface's endpoint tables, but its release notes speak of
 * the virtual-account list and its events of the "virtual account detail"; the sandbox serves both
 * under the paths the other modules use.
 */
import { z } from 'zod';
import type { DomainContext } from '../domain/context';
import {
  audWhitelistOf,
  createVirtualAccount,
  replaceWhitelistEntry,
  requestWhitelistEntry,
} from '../domain/receiving-accounts';
import { notFound } from '../http/errors';
import { paginate } from '../http/query';
import { FiatCurrencySchema, SourceAccountSchema, toSourceAccount } from '../http/request-schemas';
import { jsonBody, type RouteDefinition } from '../http/route';

const CreateVirtualAccountBody = z.object({
  customerId: z.string().min(1),
  currency: FiatCurrencySchema,
  whitelist: SourceAccountSchema.optional(),
});

/** Which virtual account the entry is for is not shown; we assume `virtualAccountId`, as the client does. */
/** POST /virtual-account/update-aud-whitelist (rampflow's assumed shape, ramp/schemas/virtual-account.ts). */
const UpdateAudWhitelistBody = z.object({
  virtualAccountId: z.string().min(1),
  id: z.number().int().positive(),
  sourceAccount: SourceAccountSchema,
});

const CreateAudWhitelistBody = z.object({
  virtualAccountId: z.string().min(1),
  sourceAccount: SourceAccountSchema,
});

const VIRTUAL_ACCOUNT_STATUSES = ['PENDING', 'VERIFIED', 'REJECTED'] as const;

export function virtualAccountRoutes(ctx: DomainContext): RouteDefinition[] {
  const { store, views } = ctx;
  return [
    {
      method: 'POST',
      path: '/virtual-account/create',
      handler: (request) => {
        const body = jsonBody(request, CreateVirtualAccountBody);
        const whitelist = body.whitelist === undefined ? undefined : toSourceAccount(body.whitelist);
        return views.virtualAccount(
          createVirtualAccount(ctx, request.partnerId, {
            customerId: body.customerId,
            currency: body.currency,
            whitelist,
          }),
        );
      },
    },
    {
      method: 'GET',
      path: '/virtual-account/detail',
      handler: ({ partnerId, query }) => {
        const account = store.virtualAccounts.find(partnerId, query.required('id'));
        if (account === undefined) throw notFound('virtual account');
        return views.virtualAccount(account);
      },
    },
    {
      method: 'GET',
      path: '/virtual-account/list',
      handler: ({ partnerId, query }) => {
        const customerId = query.optional('customerId');
        const currency = query.optional('currency');
        const status = query.oneOf('status', VIRTUAL_ACCOUNT_STATUSES);
        const rows = store.virtualAccounts.list(
          partnerId,
          (row) =>
            (customerId === undefined || row.customerId === customerId) &&
            (currency === undefined || row.currency === currency) &&
            (status === undefined || row.status === status),
        );
        return paginate(query, rows, (row) => views.virtualAccount(row));
      },
    },
    {
      // Not paginated (interface: "data = array of AUD whitelist entries").
      method: 'GET',
      path: '/virtual-account/get-aud-whitelist',
      handler: ({ partnerId, query }) =>
        audWhitelistOf(ctx, partnerId, query.required('id')).map((entry) => views.whitelistEntry(entry)),
    },
    {
      method: 'POST',
      path: '/virtual-account/create-aud-whitelist',
      handler: (request) => {
        const body = jsonBody(request, CreateAudWhitelistBody);
        return views.whitelistEntry(
          requestWhitelistEntry(ctx, request.partnerId, body.virtualAccountId, toSourceAccount(body.sourceAccount)),
        );
      },
    },
    {
      method: 'POST',
      path: '/virtual-account/update-aud-whitelist',
      handler: (request) => {
        const body = jsonBody(request, UpdateAudWhitelistBody);
        return views.whitelistEntry(
          replaceWhitelistEntry(
            ctx,
            request.partnerId,
            body.virtualAccountId,
            body.id,
            toSourceAccount(body.sourceAccount),
          ),
        );
      },
    },
  ];
}
