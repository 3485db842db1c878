/**
 * Trade and payment endpoints (interface: GET /trade/list, /trade/detail, /payment/detail, POST
 * /payment/estimate; the real service's POST /payment/create and GET /payment/list).
 */
import { z } from 'zod';
import { ALL_CURRENCIES, convert, formatAmount, formatRate, rateOf, type Currency } from '../currencies';
import type { DomainContext } from '../domain/context';
import { createPayout } from '../domain/money-movement';
import { parseDecimal } from '../decimal';
import { invalidParameters, notFound } from '../http/errors';
import { paginate, type Query } from '../http/query';
import { AmountSchema, CryptoCurrencySchema, FiatCurrencySchema } from '../http/request-schemas';
import { jsonBody, type RouteDefinition } from '../http/route';

const TRADE_STATUSES = ['PENDING', 'SETTLED'] as const;
const PAYMENT_STATUSES = ['PENDING', 'CONFIRMED', 'FAILED'] as const;

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

function isCurrency(value: string): value is Currency {
  return (ALL_CURRENCIES as readonly string[]).includes(value);
}

function currencyParameter(query: Query, name: string): Currency {
  const value = query.required(name);
  if (!isCurrency(value)) throw invalidParameters(`${name} must be one of ${ALL_CURRENCIES.join(', ')}`);
  return value;
}

function amountParameter(query: Query, name: string): string {
  const value = query.required(name);
  if (!AmountSchema.safeParse(value).success)
    throw invalidParameters(`${name} must be a positive decimal string such as "100.50"`);
  return value;
}

/** What a payout of `deductAmount` would deliver, at the sandbox's fixed rates and without fees. */
function estimate(deductCurrency: Currency, deductAmount: string, receivedCurrency: Currency) {
  const received = convert(parseDecimal(deductAmount), deductCurrency, receivedCurrency);
  return {
    rate: formatRate(rateOf(deductCurrency, receivedCurrency)),
    deductAmount: formatAmount(parseDecimal(deductAmount), deductCurrency),
    deductCurrency,
    receivedAmount: formatAmount(received, receivedCurrency),
    receivedCurrency,
    bankCharge: formatAmount(0n, receivedCurrency),
  };
}

export function tradeAndPaymentRoutes(ctx: DomainContext): RouteDefinition[] {
  const { store, views } = ctx;
  return [
    {
      method: 'GET',
      path: '/trade/list',
      handler: ({ partnerId, query }) => {
        const customerId = query.optional('customerId');
        const status = query.oneOf('status', TRADE_STATUSES);
        const rows = store.trades.list(
          partnerId,
          (row) =>
            (customerId === undefined || row.customerId === customerId) &&
            (status === undefined || row.status === status),
        );
        return paginate(query, ctx.listed(rows), (row) => views.trade(row));
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
          (row) =>
            (customerId === undefined || row.customerId === customerId) &&
            (status === undefined || row.status === status) &&
            (reference === undefined || row.reference === reference),
        );
        return paginate(query, rows, (row) => views.payment(row));
      },
    },
    {
      method: 'POST',
      path: '/payment/estimate',
      handler: (request) => {
        const body = jsonBody(request, EstimateBody);
        return estimate(body.deductCurrency as Currency, body.deductAmount, body.receivedCurrency);
      },
    },
    {
      // The same estimate with its fields in the query (the real service answers GET too).
      method: 'GET',
      path: '/payment/estimate',
      handler: ({ query }) =>
        estimate(
          currencyParameter(query, 'deductCurrency'),
          amountParameter(query, 'deductAmount'),
          currencyParameter(query, 'receivedCurrency'),
        ),
    },
    {
      // An indicative conversion of `amount` from one currency to another, as a trade would make it.
      method: 'GET',
      path: '/autoramp-flow/trade-preview',
      handler: ({ query }) => {
        const fromCurrency = currencyParameter(query, 'fromCurrency');
        const toCurrency = currencyParameter(query, 'toCurrency');
        const amount = parseDecimal(amountParameter(query, 'amount'));
        return {
          fromCurrency,
          toCurrency,
          fromAmount: formatAmount(amount, fromCurrency),
          toAmount: formatAmount(convert(amount, fromCurrency, toCurrency), toCurrency),
          rate: formatRate(rateOf(fromCurrency, toCurrency)),
        };
      },
    },
  ];
}
