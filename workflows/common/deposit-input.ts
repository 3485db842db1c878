/**
 * What starts a deposit's workflow, `deposit/<depositId>`, as a zod schema that the contract publishes
 * and the workflow checks at its start (with the check generated from it: workflows/common/start-input.ts). Whoever learns of the deposit first
 * (the event path, reconciliation, an operator) starts it with signal-with-start, passing what it
 * already knows; the workflow reads the rest from the service.
 */
import { z } from 'zod';
import { CustomerDetailsSchema } from './journey-input';
import { DepositRecordSchema } from './record-schemas';
import type { DepositTimings } from './timings';

/**
 * What a starter may override (workers pass their DEPOSIT_* settings, see
 * RampflowWorkerOptions.depositTimings; tests pass seconds). The defaults are resolved in workflow
 * code (workflows/common/timings.ts, DEPOSIT_TIMING_DEFAULTS), never filled into the input.
 */
export const DepositTimingsSchema = z
  .object({
    /** How long to wait for an event before asking the service directly. Default 900 (15 minutes). */
    pollIntervalSeconds: z.number().positive().optional().describe('default 900 (15 minutes)'),
    /** The longest pause between two polls of one step: the pauses double from the poll interval up to this. Default 21600 (6 hours). */
    pollBackoffCapSeconds: z.number().positive().optional().describe('default 21600 (6 hours)'),
    /** How long each step (confirmation, trade, settlement, payout) may take before the deposit parks. Default 259200 (3 days). */
    stepDeadlineSeconds: z.number().positive().optional().describe('default 259200 (3 days)'),
    /** How long a deposit the service does not have is given to appear before it is dismissed (workflows/common/trust.ts). Default 60. */
    notFoundGraceSeconds: z.number().positive().optional().describe('default 60'),
  })
  .describe(
    'optional overrides: what is left out takes the production default the workflow code resolves',
  ) satisfies z.ZodType<Partial<DepositTimings>>;

export const DepositLifecycleInputSchema = z.object({
  depositId: z.string().min(1),
  /** The deposit as the starter read it from the service; read afresh when absent. */
  deposit: DepositRecordSchema.optional(),
  /** The customer's externalId (so its journey, `customer/<externalId>`), when the starter knows it. */
  externalId: CustomerDetailsSchema.shape.externalId.optional(),
  /**
   * Set on a run started to report that the service refunded a deposit whose earlier run COMPLETED
   * (client/deposit-delivery.ts): the run reads the record, and reports REVERSED to the journey.
   */
  reversalOf: z.literal('COMPLETED').optional(),
  /** Overrides only; what is left out is resolved in workflow code (workflows/common/timings.ts). */
  timings: DepositTimingsSchema.optional(),
});

export type { DepositTimings } from './timings';
export type DepositLifecycleRequest = z.input<typeof DepositLifecycleInputSchema>;
export type DepositLifecycleInput = z.output<typeof DepositLifecycleInputSchema>;
