/**
 * The sandbox's own controls, signed like every endpoint: the virtual clock, the delivery log and
 * resend, fault injection, and crediting the partner's balance (what a real sandbox's dashboard
 * top-up does, so a payout has something to pay from). The clock is shared by all partners of one sandbox; deliveries and
 * faults are the calling partner's only.
 */
import { z } from 'zod';
import type { VirtualClock } from '../clock';
import { parseDecimal } from '../decimal';
import type { DomainContext } from '../domain/context';
import type { DeliveryRecord, Deliveries } from '../events/deliveries';
import { seedRecords } from '../domain/seeding';
import type { FaultInjector } from '../faults';
import { notFound } from '../http/errors';
import { AmountSchema, CryptoCurrencySchema, FiatCurrencySchema, IdBody } from '../http/request-schemas';
import { jsonBody, type RouteDefinition } from '../http/route';
import { formatAmount } from '../currencies';
import { isoTime } from '../time-format';

/** Ten years: far enough for any retry schedule, small enough to stay a sane Date. */
const MAX_ADVANCE_SECONDS = 10 * 365 * 24 * 60 * 60;

const AdvanceBody = z.object({ seconds: z.number().min(0).max(MAX_ADVANCE_SECONDS) });

const RateLimitBody = z.object({
  /** 0 lifts the limit. */
  callsPerSecond: z.number().min(0).max(100_000),
  retryAfterSeconds: z.number().int().min(0).max(3_600).default(1),
});

const DeliveryFaultsBody = z.object({
  /** The share of delivery attempts lost on the way; 0 loses none. */
  lostShare: z.number().min(0).max(1).default(0),
  /** The share of events, among those that happen from now on, whose every scheduled attempt is lost; 0 loses none. */
  lostForGoodShare: z.number().min(0).max(1).default(0),
  /** How long the first attempt of each later event waits beyond its tick; 0 holds none back. */
  delaySeconds: z.number().min(0).max(MAX_ADVANCE_SECONDS).default(0),
});

const FaultBody = z.object({
  /** A path, or `*` for every path but the sandbox's own tools. */
  path: z.union([z.string().startsWith('/'), z.literal('*')]),
  kind: z.enum(['HTTP_5XX', 'DELAY', 'RESET', 'UNAUTHORISED', 'REFUSED']),
  count: z.number().int().min(0).max(100_000).default(1),
  statusCode: z.number().int().min(500).max(599).default(503),
  delayMs: z.number().int().min(0).max(300_000).default(35_000),
  afterHandling: z.boolean().default(false),
  /** Only calls signed with this key of the partner's (all keys when absent). */
  apiKey: z.string().min(1).optional(),
  /** Only calls naming this customer (their JSON body's or query's externalId); with count 0, clears only its rules. */
  externalId: z.string().min(1).max(128).optional(),
  /** Only calls naming this customer's id at the service (query, body or the body's `from`); with count 0, clears only its rules. */
  customerId: z.string().min(1).max(128).optional(),
});

const SeedBody = z.object({
  customers: z.number().int().min(0).max(1_000_000).default(0),
  externalIdPrefix: z
    .string()
    .regex(/^[A-Za-z0-9._:@-]{1,64}$/)
    .default('seeded-'),
  deposits: z.number().int().min(0).max(10_000).default(0),
  flows: z.number().int().min(0).max(1_000_000).default(0),
  trades: z.number().int().min(0).max(1_000_000).default(0),
  tradesCustomerId: z.string().min(1).optional(),
  ageSeconds: z.number().int().min(0).max(MAX_ADVANCE_SECONDS).default(0),
});

const CreditBody = z.object({ currency: z.union([FiatCurrencySchema, CryptoCurrencySchema]), amount: AmountSchema });

const DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'FAILED'] as const;

function clockView(clock: VirtualClock) {
  return {
    now: isoTime(clock.now()),
    frozen: clock.isFrozen(),
    pending: clock.pending().map(({ label, dueAt }) => ({ label, dueAt: isoTime(dueAt) })),
  };
}

/** The callback URL is left out: it may carry the receiver's secret path token. */
function deliveryView(record: DeliveryRecord) {
  return {
    id: record.id,
    event: record.event,
    payloadId: record.payload.id,
    payload: record.payload,
    status: record.status,
    createTime: isoTime(record.createTime),
    nextAttemptTime: record.nextAttemptTime === null ? null : isoTime(record.nextAttemptTime),
    attempts: record.attempts.map((attempt) => ({
      number: attempt.number,
      trigger: attempt.trigger,
      time: isoTime(attempt.time),
      outcome: attempt.outcome,
      httpStatus: attempt.httpStatus,
      error: attempt.error,
      durationMs: attempt.durationMs,
    })),
  };
}

function pendingFaults(faults: FaultInjector, partnerId: string) {
  return faults.pending(partnerId).map(({ path, rule }) => ({ path, ...rule }));
}

export function sandboxToolRoutes(
  ctx: DomainContext,
  deliveries: Deliveries,
  faults: FaultInjector,
): RouteDefinition[] {
  const { clock } = ctx;
  return [
    {
      method: 'POST',
      path: '/sandbox/balance/credit',
      handler: (request) => {
        const body = jsonBody(request, CreditBody);
        ctx.adjustBalance(request.partnerId, body.currency, parseDecimal(body.amount));
        return {
          currency: body.currency,
          balance: formatAmount(ctx.store.partner(request.partnerId).balances.get(body.currency) ?? 0n, body.currency),
        };
      },
    },
    {
      // Many customers (deposits for the newest, other customers' flows and trades) at once, unannounced: see domain/seeding.ts.
      method: 'POST',
      path: '/sandbox/seed',
      handler: (request) => seedRecords(ctx, request.partnerId, jsonBody(request, SeedBody)),
    },
    { method: 'GET', path: '/sandbox/clock', handler: () => clockView(clock) },
    {
      method: 'POST',
      path: '/sandbox/clock/advance',
      handler: async (request) => {
        await clock.advance(jsonBody(request, AdvanceBody).seconds);
        return clockView(clock);
      },
    },
    {
      // Every delivery of the partner with every attempt, oldest first; filters `event`, `status`, `payloadId`.
      method: 'GET',
      path: '/sandbox/deliveries',
      handler: ({ partnerId, query }) => {
        const event = query.optional('event');
        const status = query.oneOf('status', DELIVERY_STATUSES);
        const payloadId = query.optional('payloadId');
        return deliveries
          .list(partnerId)
          .filter(
            (record) =>
              (event === undefined || record.event === event) &&
              (status === undefined || record.status === status) &&
              (payloadId === undefined || record.payload.id === payloadId),
          )
          .map(deliveryView);
      },
    },
    {
      method: 'POST',
      path: '/sandbox/deliveries/resend',
      handler: async (request) => {
        const record = deliveries.find(request.partnerId, jsonBody(request, IdBody).id);
        if (record === undefined) throw notFound('delivery');
        await deliveries.resend(record);
        return deliveryView(record);
      },
    },
    {
      // The partner's faults still to be served, so a test can tell which ones its client met.
      method: 'GET',
      path: '/sandbox/faults',
      handler: ({ partnerId }) => pendingFaults(faults, partnerId),
    },
    {
      method: 'POST',
      path: '/sandbox/faults',
      handler: (request) => {
        const body = jsonBody(request, FaultBody);
        faults.add(request.partnerId, body.path, {
          kind: body.kind,
          remaining: body.count,
          statusCode: body.statusCode,
          delayMs: body.delayMs,
          afterHandling: body.afterHandling,
          ...(body.apiKey ? { apiKey: body.apiKey } : {}),
          ...(body.externalId ? { externalId: body.externalId } : {}),
          ...(body.customerId ? { customerId: body.customerId } : {}),
        });
        return pendingFaults(faults, request.partnerId);
      },
    },
    {
      // The partner's webhook deliveries lost on the way, or held back; both 0 (or absent) lifts them.
      method: 'POST',
      path: '/sandbox/delivery-faults',
      handler: (request) => {
        deliveries.setFaults(request.partnerId, jsonBody(request, DeliveryFaultsBody));
        return deliveries.faultsOf(request.partnerId);
      },
    },
    {
      // The partner's rate limit: above callsPerSecond calls in any second, 429 with Retry-After.
      method: 'POST',
      path: '/sandbox/rate-limit',
      handler: (request) => {
        const body = jsonBody(request, RateLimitBody);
        faults.limitRate(request.partnerId, body.callsPerSecond === 0 ? undefined : body);
        return { rateLimit: faults.rateLimitOf(request.partnerId) ?? null };
      },
    },
  ];
}
