/**
 * What a partner backend passes to start a customer journey: validated with zod by the client before
 * anything reaches Temporal, and again by the journey itself at its start (workflows/start-input.ts),
 * for callers that start it without the client (another SDK, the Temporal CLI, the Web UI).
 */
import { z } from 'zod';

const DAY = 86_400;

/**
 * Every wait for the service has an event, a poll when no event came within the poll interval, and a
 * deadline. Production defaults; tests pass seconds. (Deposits run as workflows of their own, with
 * their own timings: workflows/deposit-input.ts.)
 */
export const JourneyTimingsSchema = z.object({
  /** How long to wait for an event before asking the service directly. */
  pollIntervalSeconds: z.number().positive().default(15 * 60),
  /** How long KYC may take before the journey is parked for an operator. */
  kycDeadlineSeconds: z.number().positive().default(30 * DAY),
  /** How long the virtual account / deposit address approvals may take. */
  accountsDeadlineSeconds: z.number().positive().default(7 * DAY),
  /** History length at which an ACTIVE journey continues as new (Temporal also suggests it). */
  maxHistoryEvents: z.number().int().min(100).default(10_000),
});

export const AudSourceAccountSchema = z.object({
  bsbNumber: z.string().regex(/^\d{6}$/, 'a BSB number is 6 digits'),
  accountNumber: z.string().regex(/^\d{4,10}$/, 'an account number is 4 to 10 digits'),
  accountName: z.string().min(1).optional(),
});

/**
 * The exits are the customer's own accounts, which the service keeps but has no endpoint to create
 * (the partner registers them, for example in its dashboard). The partner knows them by address and
 * account number; the journey finds the service's records for them, waiting until they are there.
 */
export const OnrampRequestSchema = z.object({
  /** The fiat currency the customer pays in (the virtual account's currency). */
  currency: z.string().regex(/^[A-Z]{3}$/, 'a fiat currency code such as AUD'),
  /** The customer's wallet that receives the crypto (the exit). */
  cryptoAddress: z.object({
    address: z.string().min(1),
    network: z.string().regex(/^[A-Z0-9]{2,10}$/, 'a network code such as ETH').optional(),
  }),
  /** AUD only: the bank account the customer pays from, whitelisted as the virtual account's sender. */
  audSourceAccount: AudSourceAccountSchema.optional(),
}).refine((onramp) => !onramp.audSourceAccount || onramp.currency === 'AUD', {
  path: ['audSourceAccount'],
  message: 'only an AUD onramp takes a source account',
});

export const OfframpRequestSchema = z.object({
  /** The crypto currency the customer deposits. */
  currency: z.string().regex(/^[A-Z0-9]{2,10}$/, 'a crypto currency code such as USDT'),
  /** The network of the deposit address, for example ETH or TRX. */
  network: z.string().regex(/^[A-Z0-9]{2,10}$/, 'a network code such as ETH'),
  /** The customer's bank account that receives the payout (the exit). */
  bankAccount: z.object({ accountNo: z.string().min(1) }),
});

export const CustomerDetailsSchema = z.looseObject({
  /** The partner's own user id; also the journey's workflow ID (`customer/<externalId>`). */
  externalId: z.string().regex(/^[A-Za-z0-9._:@-]{1,128}$/, 'letters, digits and . _ : @ - only, at most 128'),
  realName: z.string().min(1),
  email: z.email(),
});

export const JourneyInputSchema = z.object({
  customer: CustomerDetailsSchema,
  onramp: OnrampRequestSchema.optional(),
  offramp: OfframpRequestSchema.optional(),
  timings: JourneyTimingsSchema.default(JourneyTimingsSchema.parse({})),
});

/** The input as a caller writes it (timings optional). */
export type JourneyRequest = z.input<typeof JourneyInputSchema>;
/** The input as the workflow receives it (defaults filled in). */
export type JourneyInput = z.output<typeof JourneyInputSchema>;
export type JourneyTimings = JourneyInput['timings'];
export type OnrampRequest = z.output<typeof OnrampRequestSchema>;
export type OfframpRequest = z.output<typeof OfframpRequestSchema>;
export type AudSourceAccount = z.output<typeof AudSourceAccountSchema>;
export type CustomerDetails = z.output<typeof CustomerDetailsSchema>;
