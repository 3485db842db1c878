/**
 * Every workflow that can be started from outside checks its own input at the start of its first run,
 * against the contract the client library validates with (workflows/common/contract-checks.ts), so a caller
 * in any language (the Temporal CLI, the Web UI's "Start Workflow", another SDK) meets the same
 * contract as the TypeScript client:
 * - the timings stay the overrides given: their defaults are resolved in workflow code (workflows/common/timings.ts);
 * - bad input fails the workflow at once with a non-retryable ApplicationFailure that names every bad
 *   field, before any search attribute, activity or timer (never a workflow task retried for ever);
 * - the workflow ID must be the one the input implies (`customer/<externalId>`), because IDs are the
 *   business keys that make every start and every event idempotent.
 *
 * Messages hold field paths and the rule broken only, never the values sent (customer data).
 */
import { ApplicationFailure } from '@temporalio/common';
import { workflowInfo } from '@temporalio/workflow';
import type { z } from 'zod';
import { checkDepositLifecycleInput, checkJourneyInput, type Checked } from './contract-checks';
import type { DepositLifecycleInput } from './deposit-input';
import { depositWorkflowId, journeyWorkflowId } from './ids';
import type { JourneyInput } from './journey-input';

/** The failure type a caller can match on (`ApplicationFailure.type`). */
export const INVALID_START_INPUT = 'InvalidStartInput';

export interface StartInputIssue {
  /** Dotted path of the bad field, e.g. `customer.externalId`; `(input)` for the input as a whole. */
  path: string;
  message: string;
}

interface StartContract<I> {
  /** The contract's check of the input. */
  check(raw: unknown): Checked<I>;
  /** The workflow ID a valid input must run under. */
  workflowIdOf(input: I): string;
  workflowIdFormat: string;
}

/** The start contract of each workflow started from outside: its input's check and its ID. */
export const START_CONTRACTS = {
  customerJourney: {
    check: checkJourneyInput,
    workflowIdOf: (input: JourneyInput) => journeyWorkflowId(input.customer.externalId),
    workflowIdFormat: journeyWorkflowId('<customer.externalId>'),
  } satisfies StartContract<JourneyInput>,
  depositLifecycle: {
    check: checkDepositLifecycleInput,
    workflowIdOf: (input: DepositLifecycleInput) => depositWorkflowId(input.depositId),
    workflowIdFormat: depositWorkflowId('<depositId>'),
  } satisfies StartContract<DepositLifecycleInput>,
};

export type StartedWorkflowType = keyof typeof START_CONTRACTS;
type StartInputOf<T extends StartedWorkflowType> = T extends 'customerJourney' ? JourneyInput : DepositLifecycleInput;

/** zod's issues as the same lines (the partner API checks with zod, before anything reaches Temporal). */
export function startInputIssues(error: z.ZodError): StartInputIssue[] {
  return error.issues.map((issue) => ({ path: issue.path.map(String).join('.') || '(input)', message: issue.message }));
}

/**
 * The workflow's input, checked against its contract, or an ApplicationFailure of type
 * InvalidStartInput that fails the workflow. Call it as the workflow's first statement.
 */
export function validatedStartInput<T extends StartedWorkflowType>(workflowType: T, raw: unknown): StartInputOf<T> {
  const contract = START_CONTRACTS[workflowType] as unknown as StartContract<StartInputOf<T>>;
  const result = contract.check(raw);
  if (!result.ok) throw invalid(workflowType, result.issues);
  const expectedId = contract.workflowIdOf(result.value);
  const { workflowId } = workflowInfo();
  if (workflowId !== expectedId) {
    throw invalid(workflowType, [
      {
        path: '(workflow ID)',
        message: `a ${workflowType} with this input must run as ${expectedId} (${contract.workflowIdFormat}), not ${workflowId}`,
      },
    ]);
  }
  return result.value;
}

function invalid(workflowType: string, issues: StartInputIssue[]): ApplicationFailure {
  return ApplicationFailure.create({
    type: INVALID_START_INPUT,
    message: `invalid ${workflowType} input: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`,
    nonRetryable: true,
    details: [{ issues }],
  });
}
