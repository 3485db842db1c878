/**
 * Listing journeys and deposits through Temporal visibility: the queries rampflow's operators type in
 * the Web UI (`WorkflowType="customerJourney" AND RampStage="NEEDS_ATTENTION"`), built and read here.
 *
 * Visibility is eventually consistent: a stage change shows up in a list a moment after the
 * workflow makes it. The state query (`getJourney`) is always current.
 */
import type { EndFailure } from './workflow-end';
import { createHash } from 'node:crypto';
import type { WorkflowExecutionInfo, WorkflowExecutionStatusName } from '@temporalio/client';
import { z } from 'zod';
import {
  DEPOSIT_STAGES,
  type DepositStage,
  depositWorkflowId,
  JOURNEY_STAGES,
  type JourneyStage,
  journeyWorkflowId,
  payoutWorkflowId,
} from '../workflows/common/messages';
import { PAYOUT_STAGES, type PayoutStage } from '../workflows/payout/messages';
import { EVENT_STAGE } from '../workflows/ramp-event/events';
import { RampCustomerId, RampExternalId, RampStage } from '../observability/search-attributes';
import { RampflowInputError } from './errors';
import { parseExternalId } from './input-validation';

export interface JourneyListing {
  externalId: string;
  workflowId: string;
  runId: string;
  /** RampStage as last indexed; undefined for a journey started before the attribute existed. */
  stage?: JourneyStage;
  customerId?: string;
  status: WorkflowExecutionStatusName;
  startTime: Date;
  closeTime?: Date;
  /** How it ended, decoded, when it failed, was terminated, timed out or was cancelled (read from its history). */
  failure?: EndFailure;
}

/** A deposit as visibility shows it: everything here comes without a query to its workflow. */
export interface DepositListItem {
  depositId: string;
  workflowId: string;
  runId: string;
  stage?: DepositStage;
  externalId?: string;
  customerId?: string;
  status: WorkflowExecutionStatusName;
  startTime: Date;
  closeTime?: Date;
  /**
   * From the workflow's memo, when its start set `{kind, amount, currency}`. Visibility does not return
   * the static summary the Web UI shows (`ONRAMP deposit of 100.00 AUD`), so a memo is the only way
   * to list these without a query per deposit; `getDeposit` always has them.
   */
  kind?: 'ONRAMP' | 'OFFRAMP';
  amount?: string;
  currency?: string;
}

/** A payout as visibility shows it; `attention` only where a caller read the parked one's state. */
export interface PayoutListing {
  reference: string;
  workflowId: string;
  runId: string;
  stage?: PayoutStage;
  status: WorkflowExecutionStatusName;
  startTime: Date;
  closeTime?: Date;
}

export interface PayoutFilter {
  stage?: PayoutStage;
  /** At most this many, newest first (default 100). */
  limit?: number;
}

export interface EventListing {
  workflowId: string;
  runId: string;
  /** The event's new-format name (or the unknown name it came under). */
  event: string;
  payloadId: string;
  /** EVENT_RECEIVED, EVENT_WAITING, EVENT_ROUTED, EVENT_TARGET_CLOSED or EVENT_UNROUTED. */
  stage?: string;
  externalId?: string;
  status: WorkflowExecutionStatusName;
  startTime: Date;
  closeTime?: Date;
}

export interface EventFilter {
  /** Every event, not only those parked (EVENT_UNROUTED) or still looking for their target (EVENT_WAITING). */
  all?: boolean;
  limit?: number;
}

export interface JourneyFilter {
  stage?: JourneyStage;
  /** At most this many, newest first (default 100). */
  limit?: number;
}

export interface DepositFilter {
  stage?: DepositStage;
  /** Only the deposits of this customer's journey. */
  externalId?: string;
  limit?: number;
}

/** Which deposits `listDepositsPage` lists: those of one customer, at one stage, or both. */
export interface DepositPageFilter {
  /** The partner's user id of the customer (the deposits' `RampExternalId`). */
  externalId?: string;
  stage?: DepositStage;
}

export interface PageRequest {
  /** 1 to 1000 (the frontend's own cap on a visibility page); default 100. */
  pageSize?: number;
  /** The `nextPageToken` of the page before; none for the first page. */
  nextPageToken?: string;
}

export interface DepositPage {
  deposits: DepositListItem[];
  /** Absent on the last page. */
  nextPageToken?: string;
}

export const DEFAULT_LIST_LIMIT = 100;
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

const LimitSchema = z.number().int().positive().default(DEFAULT_LIST_LIMIT);
const PageSizeSchema = z.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE);
// The server's token is opaque bytes; callers carry it as base64url text (safe in a URL or a shell).
const NOT_OUR_TOKEN = 'not a page token this list gave';
const PageTokenSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]+$/, NOT_OUR_TOKEN)
  .optional();

function checked<T>(schema: z.ZodType<T>, value: unknown, field: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new RampflowInputError(result.error.issues.map((issue) => `${field}: ${issue.message}`));
  return result.data;
}

// Every value put into a query has been validated (stages are enums, externalIds allow no quotes).
const equals = (field: string, value: string): string => `${field} = '${value}'`;

// A journey continues as new for the customer's life: its finished runs keep their attributes, so
// only the current run of each chain is listed.
const CURRENT_RUNS_ONLY = "ExecutionStatus != 'ContinuedAsNew'";

function journeyClauses(filter: { stage?: JourneyStage | undefined }): string[] {
  const clauses = [equals('WorkflowType', 'customerJourney'), CURRENT_RUNS_ONLY];
  if (filter.stage !== undefined)
    clauses.push(equals(RampStage.name, checked(z.enum(JOURNEY_STAGES), filter.stage, 'stage')));
  return clauses;
}

function depositClauses(filter: { stage?: DepositStage | undefined; externalId?: string | undefined }): string[] {
  const clauses = [equals('WorkflowType', 'depositLifecycle'), CURRENT_RUNS_ONLY];
  if (filter.stage !== undefined)
    clauses.push(equals(RampStage.name, checked(z.enum(DEPOSIT_STAGES), filter.stage, 'stage')));
  if (filter.externalId !== undefined) clauses.push(equals(RampExternalId.name, parseExternalId(filter.externalId)));
  return clauses;
}

// A parked payout continues as new while it stays parked (CarriedPayout, workflows/payout/workflow.ts).
function payoutClauses(filter: { stage?: PayoutStage | undefined }): string[] {
  const clauses = [equals('WorkflowType', 'payout'), CURRENT_RUNS_ONLY];
  if (filter.stage !== undefined)
    clauses.push(equals(RampStage.name, checked(z.enum(PAYOUT_STAGES), filter.stage, 'stage')));
  return clauses;
}

/**
 * What a bulk action may touch: running workflows (an ended one keeps its last RampStage forever)
 * of one task queue, the deployment the operator configured (TEMPORAL_TASK_QUEUE), never another
 * one sharing the namespace.
 */
function runningOn(taskQueue: string): string[] {
  return [
    "ExecutionStatus = 'Running'",
    equals('TaskQueue', checked(z.string().regex(/^[^'"\\]+$/, 'no quotes or backslashes'), taskQueue, 'taskQueue')),
  ];
}

export function journeyListQuery(filter: JourneyFilter): { query: string; limit: number } {
  return { query: journeyClauses(filter).join(' AND '), limit: checked(LimitSchema, filter.limit, 'limit') };
}

export function depositListQuery(filter: DepositFilter): { query: string; limit: number } {
  return { query: depositClauses(filter).join(' AND '), limit: checked(LimitSchema, filter.limit, 'limit') };
}

export function payoutListQuery(filter: PayoutFilter): { query: string; limit: number } {
  return { query: payoutClauses(filter).join(' AND '), limit: checked(LimitSchema, filter.limit, 'limit') };
}

/**
 * A page token is the server's token followed by a check over it and the query it continues. The
 * server answers a mangled token with a generic error after its retries (20 s on the dev server), and
 * a token from another filter would quietly continue the wrong list; the check refuses both at once.
 */
const TOKEN_CHECK_BYTES = 8;
const tokenCheck = (query: string, serverToken: Uint8Array): Buffer =>
  createHash('sha256').update(query).update(serverToken).digest().subarray(0, TOKEN_CHECK_BYTES);

/** The query, page size and the server's token for one page of `listDepositsPage`. */
export function depositPageQuery(
  filter: DepositPageFilter,
  page: PageRequest,
): { query: string; pageSize: number; nextPageToken: Buffer } {
  const query = depositClauses(filter).join(' AND ');
  const pageSize = checked(PageSizeSchema, page.pageSize, 'pageSize');
  const token = checked(PageTokenSchema, page.nextPageToken, 'nextPageToken');
  if (token === undefined) return { query, pageSize, nextPageToken: Buffer.alloc(0) };
  const bytes = Buffer.from(token, 'base64url');
  const serverToken = bytes.subarray(0, -TOKEN_CHECK_BYTES);
  if (serverToken.length === 0 || !tokenCheck(query, serverToken).equals(bytes.subarray(-TOKEN_CHECK_BYTES))) {
    throw new RampflowInputError([`nextPageToken: ${NOT_OUR_TOKEN}`]);
  }
  return { query, pageSize, nextPageToken: serverToken };
}

/** The server's token as callers carry it; none when the server says this was the last page. */
export function pageTokenText(query: string, serverToken: Uint8Array | null | undefined): string | undefined {
  if (!serverToken || serverToken.length === 0) return undefined;
  return Buffer.concat([serverToken, tokenCheck(query, serverToken)]).toString('base64url');
}

/** The journeys a bulk action works through: running at one stage, on the client's task queue. */
export function journeyBulkQuery(filter: { stage: JourneyStage }, taskQueue: string): string {
  return [...journeyClauses(filter), ...runningOn(taskQueue)].join(' AND ');
}

/** The journeys a hand-over works through: every one running on the client's task queue, at any stage. */
export function journeyHandOverQuery(taskQueue: string): string {
  return [...journeyClauses({}), ...runningOn(taskQueue)].join(' AND ');
}

/** The deposits a bulk action works through: running at one stage (of one customer), on the client's task queue. */
export function depositBulkQuery(
  filter: { stage: DepositStage; externalId?: string | undefined },
  taskQueue: string,
): string {
  return [...depositClauses(filter), ...runningOn(taskQueue)].join(' AND ');
}

/** The payouts a bulk action works through: running at one stage, on the client's task queue. */
export function payoutBulkQuery(filter: { stage: PayoutStage }, taskQueue: string): string {
  return [...payoutClauses(filter), ...runningOn(taskQueue)].join(' AND ');
}

/** Events operators have to look at: parked for good, or still waiting for their target. */
const NEEDS_A_LOOK = [EVENT_STAGE.UNROUTED, EVENT_STAGE.WAITING];

export function eventListQuery(filter: EventFilter): { query: string; limit: number } {
  const clauses = [equals('WorkflowType', 'rampEvent')];
  if (!filter.all) clauses.push(`${RampStage.name} IN (${NEEDS_A_LOOK.map((stage) => `'${stage}'`).join(', ')})`);
  return { query: clauses.join(' AND '), limit: checked(LimitSchema, filter.limit, 'limit') };
}

function oneOf<T extends string>(values: readonly T[], value: string | undefined): T | undefined {
  return values.find((candidate) => candidate === value);
}

/** The business key back out of a workflow ID built by workflows/common/messages.ts (`customer/<externalId>`). */
function keyOf(workflowId: string, idOf: (key: string) => string): string {
  const prefix = idOf('');
  return workflowId.startsWith(prefix) ? workflowId.slice(prefix.length) : workflowId;
}

function common(info: WorkflowExecutionInfo) {
  return {
    workflowId: info.workflowId,
    runId: info.runId,
    status: info.status.name,
    startTime: info.startTime,
    ...(info.closeTime ? { closeTime: info.closeTime } : {}),
  };
}

export function toJourneyListing(info: WorkflowExecutionInfo): JourneyListing {
  const stage = oneOf(JOURNEY_STAGES, info.typedSearchAttributes.get(RampStage));
  const customerId = info.typedSearchAttributes.get(RampCustomerId);
  return {
    externalId: info.typedSearchAttributes.get(RampExternalId) ?? keyOf(info.workflowId, journeyWorkflowId),
    ...common(info),
    ...(stage ? { stage } : {}),
    ...(customerId ? { customerId } : {}),
  };
}

export function toPayoutListing(info: WorkflowExecutionInfo): PayoutListing {
  const stage = oneOf(PAYOUT_STAGES, info.typedSearchAttributes.get(RampStage));
  return { reference: keyOf(info.workflowId, payoutWorkflowId), ...common(info), ...(stage ? { stage } : {}) };
}

/** `event/<EVENT>/<payload.id>` (workflows/common/messages.ts) read back; the payload id may itself hold slashes. */
export function toEventListing(info: WorkflowExecutionInfo): EventListing {
  const [, event = '', ...rest] = info.workflowId.split('/');
  const indexedStage = info.typedSearchAttributes.get(RampStage);
  // An event routed at once keeps the stage it started with (workflows/ramp-event/workflow.ts, `routed`).
  const stage =
    indexedStage === EVENT_STAGE.RECEIVED && info.status.name === 'COMPLETED' ? EVENT_STAGE.ROUTED : indexedStage;
  const externalId = info.typedSearchAttributes.get(RampExternalId);
  return {
    event,
    payloadId: rest.join('/'),
    ...common(info),
    ...(stage ? { stage } : {}),
    ...(externalId ? { externalId } : {}),
  };
}

// What a deposit's start may put in its memo so lists can show it; anything else there is ignored.
const DepositMemoSchema = z.object({
  kind: z.enum(['ONRAMP', 'OFFRAMP']).optional().catch(undefined),
  amount: z.string().optional().catch(undefined),
  currency: z.string().optional().catch(undefined),
});

export function toDepositListItem(info: WorkflowExecutionInfo): DepositListItem {
  const stage = oneOf(DEPOSIT_STAGES, info.typedSearchAttributes.get(RampStage));
  const externalId = info.typedSearchAttributes.get(RampExternalId);
  const customerId = info.typedSearchAttributes.get(RampCustomerId);
  const memo = DepositMemoSchema.safeParse(info.memo ?? {});
  const { kind, amount, currency } = memo.success ? memo.data : {};
  return {
    depositId: keyOf(info.workflowId, depositWorkflowId),
    ...common(info),
    ...(stage ? { stage } : {}),
    ...(externalId ? { externalId } : {}),
    ...(customerId ? { customerId } : {}),
    ...(kind ? { kind } : {}),
    ...(amount ? { amount } : {}),
    ...(currency ? { currency } : {}),
  };
}
