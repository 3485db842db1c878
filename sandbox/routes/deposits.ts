/** Deposit endpoints (interface: "Deposits", and POST /deposit/submitAttachmentFile). */
import type { DomainContext } from '../domain/context';
import { attachToDeposit, receiveDeposit } from '../domain/money-movement';
import { invalidParameters, notFound } from '../http/errors';
import { readMultipart } from '../http/multipart';
import { paginate } from '../http/query';
import { SimulatedDepositBody } from '../http/request-schemas';
import { jsonBody, type RouteDefinition } from '../http/route';
import type { DepositStatus } from '../state/records';

const DEPOSIT_STATUSES: readonly DepositStatus[] = ['RECEIVED', 'CONFIRMED', 'ACTION_REQUIRED', 'REJECTED'];

export function depositRoutes(ctx: DomainContext): RouteDefinition[] {
  const { store, views } = ctx;
  return [
    {
      // The optional `status` filters too: a record in another status answers as not found.
      method: 'GET',
      path: '/deposit/detail',
      handler: ({ partnerId, query }) => {
        const deposit = store.deposits.find(partnerId, query.required('id'));
        const status = query.oneOf('status', DEPOSIT_STATUSES);
        if (deposit === undefined || (status !== undefined && deposit.status !== status)) throw notFound('deposit');
        return views.deposit(deposit);
      },
    },
    {
      method: 'GET',
      path: '/deposit/list',
      handler: ({ partnerId, query }) => {
        const customerId = query.optional('customerId');
        const currency = query.optional('currency');
        const status = query.oneOf('status', DEPOSIT_STATUSES);
        const rows = store.deposits.list(
          partnerId,
          (row) =>
            (customerId === undefined || row.customerId === customerId) &&
            (currency === undefined || row.currency === currency) &&
            (status === undefined || row.status === status),
        );
        return paginate(query, ctx.listed(rows), (row) => views.depositListItem(row));
      },
    },
    {
      // The real sandbox's simulated deposit; the same as /sandbox/deposit/simulate (field names assumed).
      method: 'POST',
      path: '/deposit/mock',
      handler: (request) =>
        views.deposit(receiveDeposit(ctx, request.partnerId, jsonBody(request, SimulatedDepositBody))),
    },
    {
      // Shape not shown. The sandbox takes form fields `id` (the deposit) and `file` (the document);
      // the body is multipart, so its hash line in the signature is empty.
      method: 'POST',
      path: '/deposit/submitAttachmentFile',
      handler: async ({ partnerId, rawBody, contentType }) => {
        const form = await readMultipart(rawBody, contentType);
        const id = form.get('id');
        const file = form.get('file');
        if (typeof id !== 'string' || id === '') throw invalidParameters('form field id (the deposit id) is required');
        if (file === null || typeof file === 'string')
          throw invalidParameters('form field file (the attachment) is required');
        const deposit = attachToDeposit(ctx, partnerId, id, file.name);
        return { id: deposit.id, fileName: file.name, status: deposit.status };
      },
    },
    {
      // The older generation's numbering: a partner's deposits counted from 1 in the order they arrived
      // (records are never removed, so the numbers are stable).
      method: 'GET',
      path: '/legacy-deposit/list',
      handler: ({ partnerId, query }) => {
        const numbered = store.deposits.list(partnerId).map((row, index) => ({ row, number: index + 1 }));
        return paginate(query, numbered, ({ row, number }) => views.legacyDeposit(row, number));
      },
    },
    {
      method: 'GET',
      path: '/legacy-deposit/detail',
      handler: ({ partnerId, query }) => {
        const id = Number(query.required('id'));
        const deposit = Number.isSafeInteger(id) && id >= 1 ? store.deposits.list(partnerId)[id - 1] : undefined;
        if (deposit === undefined) throw notFound('deposit');
        return views.legacyDeposit(deposit, id);
      },
    },
  ];
}
