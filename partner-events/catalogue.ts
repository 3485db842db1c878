/**
 * Partner events: what rampflow tells the partner's product about its customers and payouts. Each
 * event reports a fact the service's own records established (DESIGN, "Trust"): a stage the journey
 * reached after reading the service, a deposit's progress the deposit workflow read itself, a
 * payment's settlement read from the service. Never a secret, never more than the product needs.
 *
 * The envelope follows Standard Webhooks' recommended payload (`type`, `timestamp`, `data`), plus the
 * event's `id` (also the `webhook-id` header: a retry carries the same id), the stream it belongs to
 * (`externalId` for a customer, `payoutReference` for a payout) and `sequence`, which counts from 1
 * within that stream, so a partner sees order and gaps per customer.
 *
 * The zod schemas here are the one source of the contract's JSON Schemas and of docs/reference/partner-events.md's event
 * catalogue; workflow code imports only the types.
 */
import { z } from 'zod';

const depositFacts = {
  depositId: z.string(),
  kind: z
    .enum(['ONRAMP', 'OFFRAMP'])
    .describe('ONRAMP: fiat arrived at the virtual account; OFFRAMP: crypto arrived at the deposit address'),
  amount: z.string().describe('decimal string, as the service reported it'),
  currency: z.string(),
};

/** Every event type, with its `data` and one line on when it is sent. */
export const PARTNER_EVENT_DATA = {
  'journey.kyc_required': {
    when: 'the service created the customer and KYC is still to be done: show the customer the link',
    data: z.object({ kycLink: z.string().describe("the service's KYC link for this customer") }),
  },
  'journey.approved': {
    when: "the service approved the customer's KYC",
    data: z.object({}),
  },
  'journey.rejected': {
    when: "the service rejected the customer's KYC; the journey has ended",
    data: z.object({ reason: z.string() }),
  },
  'journey.accounts_ready': {
    when: "the service approved the customer's receiving accounts: the details to show the customer, read from the service",
    data: z.object({
      virtualAccount: z
        .object({
          id: z.string(),
          currency: z.string().optional(),
          accountNumber: z.string().optional(),
          bicSwift: z.string().optional(),
          payId: z.string().optional(),
          bankName: z.string().optional(),
        })
        .optional()
        .describe('where the customer sends fiat (onramp)'),
      depositAddress: z
        .object({
          id: z.string(),
          address: z.string().optional(),
          network: z.string().optional(),
          currency: z.string().optional(),
        })
        .optional()
        .describe('where the customer sends crypto (offramp)'),
    }),
  },
  'journey.active': {
    when: 'the customer is set up: deposits are taken from now on',
    data: z.object({}),
  },
  'journey.needs_attention': {
    when: 'the journey is parked for an operator (a deadline passed, the service refused something)',
    data: z.object({ stage: z.string().describe('the stage that was parked'), reason: z.string() }),
  },
  'journey.resumed': {
    when: 'an operator resumed a parked journey',
    data: z.object({ stage: z.string().describe('the stage the journey resumed') }),
  },
  'journey.closed': {
    when: 'the journey ended: closed by an operator or the partner, or the service deleted the customer',
    data: z.object({ reason: z.string() }),
  },
  'deposit.received': {
    when: 'the service reports a deposit for the customer (read from the service, not from a webhook)',
    data: z.object(depositFacts),
  },
  'deposit.action_required': {
    when: 'the service holds the deposit until the customer acts (a document, a check)',
    data: z.object(depositFacts),
  },
  'deposit.completed': {
    when: "the deposit's trade and payment settled: the money arrived where the customer asked",
    data: z.object({ ...depositFacts, tradeId: z.string().optional(), paymentId: z.string().optional() }),
  },
  'deposit.rejected': {
    when: 'the service rejected the deposit before any money moved',
    data: z.object(depositFacts),
  },
  'deposit.reversed': {
    when: 'the service refunded a deposit it had confirmed (money had moved; a completed deposit leaves the totals)',
    data: z.object({
      ...depositFacts,
      after: z.string().describe('the stage the deposit had reached before the refund'),
    }),
  },
  'payout.settled': {
    when: "the service settled a payout from the partner's balance",
    data: z.object({
      reference: z.string(),
      paymentId: z.string(),
      receivedAmount: z.string().optional(),
      receivedCurrency: z.string().optional(),
    }),
  },
  'payout.failed': {
    when: "the service reported the payout's payment failed, or an operator cancelled a payout of which no payment exists (or only a failed one)",
    data: z.object({
      reference: z.string(),
      reason: z.string().describe("the service's reason when it failed the payment, else the operator's"),
      paymentId: z
        .string()
        .optional()
        .describe('the failed payment, when one exists: no payment under this reference will settle'),
    }),
  },
} as const;

export type PartnerEventType = keyof typeof PARTNER_EVENT_DATA;
export const PARTNER_EVENT_TYPES = Object.keys(PARTNER_EVENT_DATA) as PartnerEventType[];
export type PartnerEventData<T extends PartnerEventType> = z.output<(typeof PARTNER_EVENT_DATA)[T]['data']>;

const envelope = {
  id: z
    .string()
    .regex(/^evt_[A-Za-z0-9]{16,64}$/)
    .describe(
      "unique and stable: the webhook-id header; a retried delivery carries the same id, and a fact (a stage reached, a deposit's or a payout's progress) keeps its id when an operator resets the workflow that told it",
    ),
  timestamp: z.string().describe('ISO 8601: when rampflow established the fact'),
  sequence: z.number().int().min(1).describe("counts from 1 within the event's stream (a customer, or a payout)"),
  externalId: z.string().optional().describe("the customer's externalId (customer events)"),
  payoutReference: z.string().optional().describe("the payout's reference (payout events)"),
};

/** One event as delivered and as the pull API returns it. */
export const PartnerEventSchema = z.discriminatedUnion(
  'type',
  PARTNER_EVENT_TYPES.map((type) =>
    z
      .object({ ...envelope, type: z.literal(type), data: PARTNER_EVENT_DATA[type].data })
      .describe(PARTNER_EVENT_DATA[type].when),
  ) as unknown as [z.ZodObject, ...z.ZodObject[]],
);

/** An event as the workflow built it; a union over the types, so `data` matches `type`. */
export type PartnerEvent = {
  [T in PartnerEventType]: {
    id: string;
    type: T;
    timestamp: string;
    sequence: number;
    externalId?: string;
    payoutReference?: string;
    data: PartnerEventData<T>;
  };
}[PartnerEventType];

/**
 * A stream is what order and sequence are kept within: `customer/<externalId>` or
 * `payout/<reference>`. Its delivery workflow is `partner-events/<stream>`.
 */
export type PartnerEventStream = `customer/${string}` | `payout/${string}`;

/** A stream as an operator or a partner names one; the externalId's and the payout reference's characters. */
export const PARTNER_EVENT_STREAM = /^(customer|payout)\/[A-Za-z0-9._:@-]{1,128}$/;

export function streamOf(event: Pick<PartnerEvent, 'externalId' | 'payoutReference'>): PartnerEventStream {
  if (event.externalId !== undefined) return `customer/${event.externalId}`;
  if (event.payoutReference !== undefined) return `payout/${event.payoutReference}`;
  throw new Error('a partner event names neither a customer nor a payout');
}
