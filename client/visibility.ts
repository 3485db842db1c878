/**
 * Listing journeys and deposits through Temporal visibility: the queries rampflow's operators type in
 * the Web UI (`WorkflowType="customerJourney" AND RampStage="NEEDS_ATTENTION"`), built and read here.
 *
 * Visibility is eventually consistent: a stage change shows up in a list a moment after the
 * workflow makes it. The state query (`getJourney`) is always current.
 */
import type { WorkflowExecutionInfo, WorkflowExecutionStatusName } from '@temporalio/client';
import { z } from 'zod';
import { depositWorkflowId, journeyWorkflowId } from '../workflows/ids';
import { DEPOSIT_STAGES, JOURNEY_STAGES, type DepositStage, type JourneyStage } from '../workflows/messages';
import { EVENT_STAGE } from '../workflows/ramp-event-types';
import { RampCustomerId, RampExternalId, RampStage } from '../workflows/search-attributes';
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
}

export interface DepositListing {
  depositId: string;
  workflowId: string;
  runId: string;
  stage?: DepositStage;
  externalId?: string;
  customerId?: string;
  status: WorkflowExecutionStatusName;
  startTime: Date;
  closeTime?: Date;
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

export const DEFAULT_LIST_LIMIT = 100;

// ---- minimal stand-in for wt-12c's listDepositsPage (issue 12); the lead keeps wt-12c's version ----

/** One deposit in a page of `listDepositsPage`. */
export type DepositListItem = DepositListing;

export interface DepositPageRequest {
  /** 1 to 1000 (default 100). */
  pageSize?: number;
  /** The token of the previous page's answer, as it was given. */
  nextPageToken?: string;
}

/** The visibility query and page size of one page of deposits; the token travels as base64url. */
export function depositPageRequest(filter: Pick<DepositFilter, 'externalId' | 'stage'>, page: DepositPageRequest): { query: string; pageSize: number; nextPageToken?: Uint8Array } {
  const { query } = depositListQuery(filter);
  const pageSize = checked(z.number().int().min(1).max(1000).default(DEFAULT_LIST_LIMIT), page.pageSize, 'pageSize');
  const token = checked(z.base64url().optional(), page.nextPageToken, 'nextPageToken');
  return { query, pageSize, ...(token ? { nextPageToken: Buffer.from(token, 'base64url') } : {}) };
}

const LimitSchema = z.number().int().positive().default(DEFAULT_LIST_LIMIT);

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

export function journeyListQuery(filter: JourneyFilter): { query: string; limit: number } {
  const clauses = [equals('WorkflowType', 'customerJourney'), CURRENT_RUNS_ONLY];
  if (filter.stage !== undefined) clauses.push(equals(RampStage.name, checked(z.enum(JOURNEY_STAGES), filter.stage, 'stage')));
  return { query: clauses.join(' AND '), limit: checked(LimitSchema, filter.limit, 'limit') };
}

export function depositListQuery(filter: DepositFilter): { query: string; limit: number } {
  const clauses = [equals('WorkflowType', 'depositLifecycle')];
  if (filter.stage !== undefined) clauses.push(equals(RampStage.name, checked(z.enum(DEPOSIT_STAGES), filter.stage, 'stage')));
  if (filter.externalId !== undefined) clauses.push(equals(RampExternalId.name, parseExternalId(filter.externalId)));
  return { query: clauses.join(' AND '), limit: checked(LimitSchema, filter.limit, 'limit') };
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

/** The business key back out of a workflow ID built by workflows/ids.ts (`customer/<externalId>`). */
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

/** `event/<EVENT>/<payload.id>` (workflows/ids.ts) read back; the payload id may itself hold slashes. */
export function toEventListing(info: WorkflowExecutionInfo): EventListing {
  const [, event = '', ...rest] = info.workflowId.split('/');
  const stage = info.typedSearchAttributes.get(RampStage);
  const externalId = info.typedSearchAttributes.get(RampExternalId);
  return {
    event,
    payloadId: rest.join('/'),
    ...common(info),
    ...(stage ? { stage } : {}),
    ...(externalId ? { externalId } : {}),
  };
}

export function toDepositListing(info: WorkflowExecutionInfo): DepositListing {
  const stage = oneOf(DEPOSIT_STAGES, info.typedSearchAttributes.get(RampStage));
  const externalId = info.typedSearchAttributes.get(RampExternalId);
  const customerId = info.typedSearchAttributes.get(RampCustomerId);
  return {
    depositId: keyOf(info.workflowId, depositWorkflowId),
    ...common(info),
    ...(stage ? { stage } : {}),
    ...(externalId ? { externalId } : {}),
    ...(customerId ? { customerId } : {}),
  };
}
