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
import * as generated from '../generated/contract-checks';
import type { CheckError, GeneratedCheck } from '../generated/contract-checks';
import type { DepositLifecycleInput } from './deposit-input';
import type { DepositReport } from './deposit-reports';
import type { JourneyInput } from './journey-input';
import type { AttachmentReference, RetryRequest, SignupRequest } from './messages';
import { rampRequestIssues, type RuleIssue } from './ramp-request-rules';

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
