/**
 * Every workflow that can be started from outside checks its own input at the start of its first run,
 * with the same zod schema the client library uses, so a caller in any language (the Temporal CLI, the
 * Web UI's "Start Workflow", another SDK) meets the same contract as the TypeScript client:
 * - the timings stay the overrides given: their defaults are resolved in workflow code (workflows/timings.ts);
 * - bad input fails the workflow at once with a non-retryable ApplicationFailure that names every bad
 *   field, before any search attribute, activity or timer (never a workflow task retried for ever);
 * - the workflow ID must be the one the input implies (`customer/<externalId>`), because IDs are the
 *   business keys that make every start and every event idempotent.
 *
 * Messages hold field paths and zod's messages only, never the values sent (customer data).
 */
import { ApplicationFailure } from '@temporalio/common';
import { workflowInfo } from '@temporalio/workflow';
import type { z } from 'zod';
import { DepositLifecycleInputSchema } from './deposit-input';
import { depositWorkflowId, journeyWorkflowId } from './ids';
import { JourneyInputSchema } from './journey-input';

/** The failure type a caller can match on (`ApplicationFailure.type`). */
export const INVALID_START_INPUT = 'InvalidStartInput';

export interface StartInputIssue {
  /** Dotted path of the bad field, e.g. `customer.externalId`; `(input)` for the input as a whole. */
  path: string;
  message: string;
}

interface StartContract<S extends z.ZodType> {
  schema: S;
  /** The workflow ID a valid input must run under. */
  workflowIdOf(input: z.output<S>): string;
  workflowIdFormat: string;
}

/** The start contract of each workflow started from outside: its input schema and its ID. */
export const START_CONTRACTS = {
  customerJourney: {
    schema: JourneyInputSchema,
    workflowIdOf: (input: z.output<typeof JourneyInputSchema>) => journeyWorkflowId(input.customer.externalId),
    workflowIdFormat: journeyWorkflowId('<customer.externalId>'),
  },
  depositLifecycle: {
    schema: DepositLifecycleInputSchema,
    workflowIdOf: (input: z.output<typeof DepositLifecycleInputSchema>) => depositWorkflowId(input.depositId),
    workflowIdFormat: depositWorkflowId('<depositId>'),
  },
} satisfies Record<string, StartContract<z.ZodType>>;

export type StartedWorkflowType = keyof typeof START_CONTRACTS;

export function startInputIssues(error: z.ZodError): StartInputIssue[] {
  return error.issues.map((issue) => ({ path: issue.path.map(String).join('.') || '(input)', message: issue.message }));
}

/**
 * The workflow's input, parsed with its schema, or an ApplicationFailure of type
 * InvalidStartInput that fails the workflow. Call it as the workflow's first statement.
 */
export function validatedStartInput<T extends StartedWorkflowType>(workflowType: T, raw: unknown): z.output<(typeof START_CONTRACTS)[T]['schema']> {
  const contract: StartContract<z.ZodType> = START_CONTRACTS[workflowType] as StartContract<z.ZodType>;
  const result = contract.schema.safeParse(raw);
  if (!result.success) {
    const issues = startInputIssues(result.error);
    throw invalid(workflowType, issues);
  }
  const expectedId = contract.workflowIdOf(result.data);
  const { workflowId } = workflowInfo();
  if (workflowId !== expectedId) {
    throw invalid(workflowType, [{ path: '(workflow ID)', message: `a ${workflowType} with this input must run as ${expectedId} (${contract.workflowIdFormat}), not ${workflowId}` }]);
  }
  return result.data as z.output<(typeof START_CONTRACTS)[T]['schema']>;
}

function invalid(workflowType: string, issues: StartInputIssue[]): ApplicationFailure {
  return ApplicationFailure.create({
    type: INVALID_START_INPUT,
    message: `invalid ${workflowType} input: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`,
    nonRetryable: true,
    details: [{ issues }],
  });
}
