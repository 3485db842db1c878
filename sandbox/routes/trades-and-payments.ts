/** Trade and payment endpoints (interface: GET /trade/list, /trade/detail, /payment/detail, POST /payment/estimate). */
import { z } from 'zod';
import { ALL_CURRENCIES, convert, formatAmount, formatRate, rateOf } from '../currencies';
import type { DomainContext } from '../domain/context';
import { parseDecimal } from '../decimal';
import { notFound } from '../http/errors';
import { paginate } from '../http/query';
import { AmountSchema, FiatCurrencySchema } from '../http/request-schemas';
import { jsonBody, type RouteDefinition } from '../http/route';

const TRADE_STATUSES = ['PENDING', 'SETTLED'] as const;

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
