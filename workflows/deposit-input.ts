/**
 * What starts a deposit's workflow, `deposit/<depositId>`, as a zod schema that the workflow parses at
 * its start (workflows/start-input.ts) and the contract publishes. Whoever learns of the deposit first
 * (the event path, reconciliation, an operator) starts it with signal-with-start, passing what it
 * already knows; the workflow reads the rest from the service.
 */
import { z } from 'zod';
import { CustomerDetailsSchema } from './journey-input';
import { DepositRecordSchema } from './record-schemas';

const DAY = 86_400;

/** Production defaults; workers pass their own (tests pass seconds), see RampflowWorkerOptions.depositTimings. */
export const DepositTimingsSchema = z.object({
  /** How long to wait for an event before asking the service directly. */
  pollIntervalSeconds: z.number().positive().default(15 * 60),
  /** The longest pause between two polls of one step: the pauses double from the poll interval up to this. */
  pollBackoffCapSeconds: z.number().positive().default(6 * 60 * 60),
  /** How long each step (confirmation, trade, settlement, payout) may take before the deposit parks. */
  stepDeadlineSeconds: z.number().positive().default(3 * DAY),
  /** How long a deposit the service does not have is given to appear before it is dismissed (workflows/trust.ts). */
  notFoundGraceSeconds: z.number().positive().default(60),
});

export const DepositLifecycleInputSchema = z.object({
  depositId: z.string().min(1),
  /** The deposit as the starter read it from the service; read afresh when absent. */
  deposit: DepositRecordSchema.optional(),
  /** The customer's externalId (so its journey, `customer/<externalId>`), when the starter knows it. */
  externalId: CustomerDetailsSchema.shape.externalId.optional(),
  timings: DepositTimingsSchema.default(DepositTimingsSchema.parse({})),
});

export type DepositTimings = z.output<typeof DepositTimingsSchema>;
export type DepositLifecycleRequest = z.input<typeof DepositLifecycleInputSchema>;
export type DepositLifecycleInput = z.output<typeof DepositLifecycleInputSchema>;
