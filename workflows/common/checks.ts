/**
 * What a workflow checks of what reaches it: the generated contract checks, its start input, and an
 * attachment reference.
 */
import * as generated from '../generated/contract-checks.js';
import type { CheckError, GeneratedCheck } from '../generated/contract-checks.js';
import type { DepositLifecycleInput, JourneyInput } from '../schemas';
import {
  type AttachmentReference,
  type DepositReport,
  depositWorkflowId,
  journeyWorkflowId,
  type RetryRequest,
  type SignupRequest,
} from './messages';
import { rampRequestIssues, type RuleIssue } from './contract';
import { ApplicationFailure } from '@temporalio/common';
import { workflowInfo } from '@temporalio/workflow';
import type { z } from 'zod';

/**
 * What a workflow checks of what reaches it from any caller (another SDK, the Temporal CLI, the Web
 * UI, the TypeScript client): its start input and its updates' requests, against the published
 * contract. The checks are generated ahead of time from the contract's zod schemas
 * (workflows/generated/contract-checks.js, dev/contract-checks.ts says how and why), so a workflow
 * loads no zod; the rules that span fields come from ramp-request-rules.ts, which the zod schemas
 * share. A passed check returns the value with the keys zod would drop dropped.
 *
 * Issues name field paths and the rule broken, never the values sent (customer data).
 */
export interface ContractIssue {
  /** Dotted path of the bad field, e.g. `customer.externalId`; `(input)` for the input as a whole. */
  path: string;
  message: string;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; issues: ContractIssue[] };

type CheckName = keyof typeof generated.patternMessages;

export const checkJourneyInput = (raw: unknown) =>
  check<JourneyInput>('journeyInput', raw, (input) => rampRequestIssues(input));
export const checkDepositLifecycleInput = (raw: unknown) => check<DepositLifecycleInput>('depositLifecycleInput', raw);
export const checkSignupRequest = (raw: unknown) => check<SignupRequest>('signupRequest', raw);
export const checkAttachmentReference = (raw: unknown) => check<AttachmentReference>('attachmentReference', raw);
export const checkDepositReports = (raw: unknown) => check<DepositReport[]>('depositReports', raw);
export const checkRetryRequest = (raw: unknown) =>
  check<RetryRequest>('retryRequest', raw, (request) =>
    rampRequestIssues(request.correctedInput ?? {}).map((issue) => ({
      ...issue,
      path: ['correctedInput', ...issue.path],
    })),
  );

/** One line of issues, for an error message. */
export function describeIssues(issues: ContractIssue[]): string {
  return issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
}

/**
 * Checks a copy: the generated check drops unknown keys in place, and an update's validator, which
 * does not run on replay, must leave its handler the request the history holds.
 */
function check<T>(name: CheckName, raw: unknown, rules?: (value: T) => RuleIssue[]): Checked<T> {
  const generatedCheck: GeneratedCheck = generated[name];
  const value: unknown = raw === undefined ? undefined : JSON.parse(JSON.stringify(raw));
  if (!generatedCheck(value))
    return {
      ok: false,
      issues: (generatedCheck.errors ?? []).map((error) => issueOf(error, generated.patternMessages[name])),
    };
  const broken = rules?.(value as T) ?? [];
  if (broken.length > 0)
    return { ok: false, issues: broken.map(({ path, message }) => ({ path: dotted(path), message })) };
  return { ok: true, value: value as T };
}

/** A finding as a path and zod's words where the schema has words of its own, Ajv's otherwise. */
function issueOf(error: CheckError, patternMessages: Record<string, string>): ContractIssue {
  const at = error.instancePath.split('/').slice(1);
  if (error.keyword === 'required')
    return { path: dotted([...at, String(error.params.missingProperty)]), message: 'required' };
  if (error.keyword === 'unevaluatedProperties')
    return { path: dotted([...at, String(error.params.unevaluatedProperty)]), message: 'not a field of this input' };
  return { path: dotted(at), message: patternMessages[error.schemaPath] ?? error.message ?? error.keyword };
}

const dotted = (path: string[]) => path.join('.') || '(input)';

/**
 * Every workflow that can be started from outside checks its own input at the start of its first run,
 * against the contract the client library validates with (workflows/common/checks.ts), so a caller
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

/** The shape check of a submitted attachment reference, for the deposit's update validator. */
export function isAttachmentReference(value: unknown): value is AttachmentReference {
  return checkAttachmentReference(value).ok;
}
