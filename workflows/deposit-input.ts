/**
 * What a deposit's workflow (`deposit/<depositId>`) starts with, as a zod schema that the workflow
 * parses at its start (workflows/start-input.ts) and the contract publishes. Whoever starts a
 * deposit's workflow sends this shape; the DepositLifecycleInput interface in deposit.ts must stay
 * equal to its output (test/contract/schema-types.test.ts checks it).
 */
import { z } from 'zod';
import { CustomerDetailsSchema, JourneyTimingsSchema } from './journey-input';
import { DepositRecordSchema } from './record-schemas';

export const DepositLifecycleInputSchema = z.object({
  deposit: DepositRecordSchema,
  kind: z.enum(['ONRAMP', 'OFFRAMP']),
  journeyWorkflowId: z.string().regex(/^customer\/.+/, 'the journey\'s workflow ID, customer/<externalId>').describe('the journey to report progress to'),
  externalId: CustomerDetailsSchema.shape.externalId,
  timings: JourneyTimingsSchema.default(JourneyTimingsSchema.parse({})),
});
