/**
 * Trade and payment endpoints (interface: GET /trade/list, /trade/detail, /payment/detail, POST
 * /payment/estimate; the real service's POST /payment/create and GET /payment/list).
 */
import { z } from 'zod';
import { ALL_CURRENCIES, convert, formatAmount, formatRate, rateOf } from '../currencies';
import type { DomainContext } from '../domain/context';
import { createPayout } from '../domain/money-movement';
import { parseDecimal } from '../decimal';
import { notFound } from '../http/errors';
import { paginate } from '../http/query';
import { AmountSchema, CryptoCurrencySchema, FiatCurrencySchema } from '../http/request-schemas';
import { jsonBody, type RouteDefinition } from '../http/route';

const TRADE_STATUSES = ['PENDING', 'SETTLED'] as const;
const PAYMENT_STATUSES = ['PENDING', 'CONFIRMED'] as const;

/** POST /payment/create (rampflow's assumed shape, ramp/schemas/payment.ts). */
const CreatePaymentBody = z.object({
  bankAccountId: z.string().min(1),
  deductCurrency: CryptoCurrencySchema,
  deductAmount: AmountSchema,
  reference: z.string().min(1).max(64),
});

/** Shape not shown: the sandbox estimates a payout of `deductAmount` in one currency, received in another. */
const EstimateBody = z.object({
  deductCurrency: z.enum(ALL_CURRENCIES as [string, ...string[]]),
  deductAmount: AmountSchema,
  receivedCurrency: FiatCurrencySchema,
});

export function tradeAndPaymentRoutes(ctx: DomainContext): RouteDefinition[] {
  const { store, views } = ctx;
  return [
    {
      method: 'GET',
      path: '/trade/list',
      handler: ({ partnerId, query }) => {
        const customerId = query.optional('customerId');
        const status = query.oneOf('status', TRADE_STATUSES);
        const rows = store.trades.list(partnerId, (row) => (customerId === undefined || row.customerId === customerId) && (status === undefined || row.status === status));
        return paginate(query, rows, (row) => views.trade(row));
      },
    },
    {
      method: 'GET',
      path: '/trade/detail',
      handler: ({ partnerId, query }) => {
        const trade = store.trades.find(partnerId, query.required('id'));
        if (trade === undefined) throw notFound('trade');
        return views.trade(trade);
      },
    },
    {
      method: 'GET',
      path: '/payment/detail',
      handler: ({ partnerId, query }) => {
        const payment = store.payments.find(partnerId, query.required('id'));
        if (payment === undefined) throw notFound('payment');
        return views.payment(payment);
      },
    },
    {
      method: 'POST',
      path: '/payment/create',
      handler: (request) => views.payment(createPayout(ctx, request.partnerId, jsonBody(request, CreatePaymentBody))),
    },
    {
      method: 'GET',
      path: '/payment/list',
      handler: ({ partnerId, query }) => {
        const customerId = query.optional('customerId');
        const status = query.oneOf('status', PAYMENT_STATUSES);
        const reference = query.optional('reference');
        const rows = store.payments.list(
          partnerId,
          (row) => (customerId === undefined || row.customerId === customerId) && (status === undefined || row.status === status) && (reference === undefined || row.reference === reference),
        );
        return paginate(query, rows, (row) => views.payment(row));
      },
    },
    {
      method: 'POST',
      path: '/payment/estimate',
      handler: (request) => {
        const body = jsonBody(request, EstimateBody);
        const from = body.deductCurrency as (typeof ALL_CURRENCIES)[number];
        const received = convert(parseDecimal(body.deductAmount), from, body.receivedCurrency);
        return {
          rate: formatRate(rateOf(from, body.receivedCurrency)),
          deductAmount: formatAmount(parseDecimal(body.deductAmount), from),
          deductCurrency: from,
          receivedAmount: formatAmount(received, body.receivedCurrency),
          receivedCurrency: body.receivedCurrency,
          bankCharge: formatAmount(0n, body.receivedCurrency),
        };
      },
    },
  ];
}
