/**
 * The partner and operator side of rampflow: start a customer's journey on signup, read its state,
 * list journeys by stage, and the operator's updates (retry, cancel, close, submit an attachment).
 * Everything a caller sends is validated before it reaches Temporal; every message is typed from the
 * shared definitions in workflows/messages.ts.
 */
import { randomUUID } from 'node:crypto';
import {
  WithStartWorkflowOperation,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
  type WorkflowExecutionInfo,
  type WorkflowHandle,
  type WorkflowStartOptions,
} from '@temporalio/client';
// The SDK's own conversion of a listed execution, which its list() iterator uses but does not export
// from the package root; listDepositsPage needs it because that iterator hides the page token.
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers';
import { temporal } from '@temporalio/proto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { DepositOutcome, depositLifecycle } from '../workflows/deposit';
import { depositWorkflowId, journeyWorkflowId } from '../workflows/ids';
import type { customerJourney, JourneyOutcome } from '../workflows/journey';
import type { JourneyInput, JourneyRequest } from '../workflows/journey-input';
import { SIGNUP_WAIT_DEFAULT_SECONDS } from '../config/signup-wait';
import {
  cancelUpdate,
  closeCustomerUpdate,
  depositStateQuery,
  journeyStateQuery,
  JOURNEY_STAGES,
  retryUpdate,
  signupUpdate,
  submitAttachmentUpdate,
  type DepositStage,
  type DepositState,
  type JourneyStage,
  type JourneyState,
} from '../workflows/messages';
import type { RampEventResult } from '../workflows/ramp-event-types';
import { RampExternalId, RampStage } from '../workflows/search-attributes';
import { runBulk, type BulkAction, type BulkOptions, type BulkReport } from './bulk';
import { attachmentStoreFromEnv, checkIn, type AttachmentFile, type AttachmentStore } from '../attachments';
import { explainTemporalError, RampflowInputError, RampflowUpdateRefusedError } from './errors';
import { explained, stateOrEnd } from './explained';
import { endJson, isEndStatus, readWorkflowEnd, type EndedRun, type EndFailure } from './workflow-end';
import { parseAttachment, parseCorrectedInput, parseDepositId, parseExternalId, parseJourneyRequest, parseSignupWait, type CorrectedInput } from './input-validation';
import {
  depositBulkQuery,
  depositListQuery,
  depositPageQuery,
  eventListQuery,
  journeyBulkQuery,
  journeyListQuery,
  pageTokenText,
  toDepositListItem,
  toEventListing,
  toJourneyListing,
  type DepositFilter,
  type DepositListItem,
  type DepositPage,
  type DepositPageFilter,
  type EventFilter,
  type EventListing,
  type JourneyFilter,
  type JourneyListing,
  type PageRequest,
} from './visibility';

/** A listed event, with why it was parked once it has ended parked, or how it ended when its workflow failed or was terminated. */
export type EventReport = EventListing & Partial<Pick<RampEventResult, 'outcome' | 'parkCode' | 'reason' | 'target'>> & { failure?: EndFailure };

/** Which journeys a bulk action works through. */
export interface JourneyBulkFilter {
  /** Default NEEDS_ATTENTION, the only stage `retry` and `cancel` apply to. */
  stage?: JourneyStage;
  /** Only those whose attention has this error type (InvalidParameters, Unauthorised, Deadline, ...). */
  errorType?: string;
}

/** Which deposits a bulk action works through. */
export interface DepositBulkFilter {
  /** Default NEEDS_ATTENTION. */
  stage?: DepositStage;
  /** Only this customer's deposits. */
  externalId?: string;
  errorType?: string;
}

export type JourneyHandle = WorkflowHandle<typeof customerJourney>;

export interface SignUpOptions {
  /**
   * How long to wait for the service's KYC link, in seconds: default 5, at most 30, 0 for no wait.
   * The call itself answers within this plus a moment (SIGNUP_GRACE_MS), whatever Temporal or the
   * workers do.
   */
  waitSeconds?: number;
}

/** What `signUp` learned in its one round trip. */
export interface SignUp {
  handle: JourneyHandle;
  /**
   * The journey's stage: as it answered the signup, or else as last indexed (RampStage). Absent only
   * when neither could be read.
   */
  stage?: JourneyStage;
  /** Where the customer passes KYC, from the service's own record; absent when not known within the wait. */
  kycLink?: string;
  /** What the journey waits for, when it answered. */
  waitingFor?: string;
}

/**
 * Added to a signup's wait for the round trip to the journey's worker: the call's deadline. Past it
 * (no worker polling, Temporal slow or away) the signup answers without the journey's word.
 */
export const SIGNUP_GRACE_MS = 2_000;
export type DepositHandle = WorkflowHandle<typeof depositLifecycle>;
export type { JourneyOutcome, DepositOutcome };

function bulkErrorType(errorType: string | undefined): string | undefined {
  if (errorType !== undefined && !/^[A-Za-z]{1,64}$/.test(errorType)) throw new RampflowInputError([`errorType: a type such as InvalidParameters, Unauthorised or Deadline, got '${errorType}'`]);
  return errorType;
}

function checkedBulkOptions<O extends BulkOptions>(options: O): O {
  const { concurrency } = options;
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 100)) {
    throw new RampflowInputError(['concurrency: a whole number from 1 to 100']);
  }
  return options;
}

export class RampflowClient {
  /**
   * @param temporal a connected Temporal client (its namespace is the journeys' namespace)
   * @param taskQueue the task queue rampflow's workers poll
   * @param release closes what the client owns (its connection), if anything
   * @param attachmentStore where submitted documents are kept, so that only their reference enters a history
   */
  constructor(
    readonly temporal: Client,
    readonly taskQueue: string,
    private readonly release: () => Promise<void> = async () => {},
    private readonly attachmentStore: AttachmentStore = attachmentStoreFromEnv(),
  ) {}

  // ---- journeys ---------------------------------------------------------------------------------

  /**
   * Starts the customer's journey, or returns the one that already exists for this externalId, so a
   * partner backend can call it on every signup retry. A journey that exists keeps its own input (an
   * operator changes it with `retry(externalId, correctedInput)`), and one that has ended (CLOSED,
   * REJECTED, or terminated) is returned as it is, never started again: see README, "Starting a
   * journey".
   *
   * @throws RampflowInputError naming every bad field, before anything reaches Temporal
   */
  async startJourney(request: JourneyRequest): Promise<JourneyHandle> {
    const input = parseJourneyRequest(request);
    try {
      return await this.temporal.workflow.start<typeof customerJourney>('customerJourney', this.journeyStartOptions(input));
    } catch (error) {
      // A running journey is returned as it is (USE_EXISTING); an ended one makes the start fail.
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      return this.journeyHandle(input.customer.externalId);
    }
  }

  /**
   * Signup in one round trip: `startJourney`, and in the same call (Temporal's update-with-start) the
   * journey's `signup` update, which answers its stage and, when the service gives it within
   * `options.waitSeconds` (default 5), the customer's KYC link. Idempotent like `startJourney`: a
   * running journey of this externalId answers at once when it knows the link.
   *
   * Bounded: when the journey cannot answer in time (no worker polling, or a worker of code without the
   * update), the journey is started (or found) as `startJourney` does and the answer has no link; an
   * ended journey is returned as it is, with its stage. Temporal away fails the call as it fails
   * `startJourney`.
   *
   * @throws RampflowInputError naming every bad field (of the request or the wait), before anything reaches Temporal
   */
  async signUp(request: JourneyRequest, options: SignUpOptions = {}): Promise<SignUp> {
    const input = parseJourneyRequest(request);
    const waitSeconds = parseSignupWait(options.waitSeconds) ?? SIGNUP_WAIT_DEFAULT_SECONDS;
    const startWorkflowOperation = new WithStartWorkflowOperation<typeof customerJourney>('customerJourney', this.journeyStartOptions(input));
    try {
      // The deadline bounds every call inside, the SDK's re-sends and polls for the update's outcome included.
      const answer = await this.temporal.connection.withDeadline(Date.now() + waitSeconds * 1000 + SIGNUP_GRACE_MS, () =>
        this.temporal.workflow.executeUpdateWithStart(signupUpdate, { args: [{ waitSeconds }], startWorkflowOperation }),
      );
      return { handle: await startWorkflowOperation.workflowHandle(), ...answer };
    } catch (error) {
      // Ended (REJECT_DUPLICATE): as startJourney, the journey as it is. Not answered in time, or
      // refused by a worker that predates the update: the journey may or may not have started, so
      // start it (or find it) as startJourney does. Anything else (Temporal away) is the caller's.
      const unanswered = error instanceof WorkflowUpdateRPCTimeoutOrCancelledError || error instanceof WorkflowUpdateFailedError;
      if (!unanswered && !(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      const handle = unanswered ? await this.startJourney(input) : this.journeyHandle(input.customer.externalId);
      const stage = await this.indexedStage(handle);
      return { handle, ...(stage ? { stage } : {}) };
    }
  }

  /** How a journey is started, by `startJourney` and `signUp` alike. */
  private journeyStartOptions(input: JourneyInput): WorkflowStartOptions<typeof customerJourney> & { workflowIdConflictPolicy: 'USE_EXISTING' } {
    const { externalId } = input.customer;
    return {
      workflowId: journeyWorkflowId(externalId),
      taskQueue: this.taskQueue,
      args: [input],
      // A running journey is used as it is; an ended one is never started again.
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      // Indexed from the first moment, so the journey is listable before a worker has picked it up.
      typedSearchAttributes: [
        { key: RampExternalId, value: externalId },
        { key: RampStage, value: 'CREATING_CUSTOMER' },
      ],
      staticSummary: `customer journey of ${externalId}`,
    };
  }

  /** The journey's stage as last indexed (RampStage), read from the server without a worker; undefined if unknown. */
  private async indexedStage(handle: JourneyHandle): Promise<JourneyStage | undefined> {
    const indexed = (await handle.describe()).typedSearchAttributes.get(RampStage);
    return JOURNEY_STAGES.find((stage) => stage === indexed);
  }

  /** A handle on the journey's latest run (it follows continue-as-new), e.g. to await `result()`. */
  journeyHandle(externalId: string): JourneyHandle {
    return this.temporal.workflow.getHandle<typeof customerJourney>(journeyWorkflowId(parseExternalId(externalId)));
  }

  /**
   * The journey's whole state (the `journeyState` query); needs a worker to answer.
   * @throws RampflowWorkflowEndedError when the journey failed, was terminated, timed out or was
   *   cancelled: its `end` has the decoded type, message and fields (client/workflow-end.ts)
   */
  async getJourney(externalId: string): Promise<JourneyState> {
    return stateOrEnd(this.journeyHandle(externalId), `journey ${externalId}`, (handle) => handle.query(journeyStateQuery));
  }

  /**
   * Journeys newest first, optionally only those at one stage (e.g. NEEDS_ATTENTION). One that
   * failed, was terminated, timed out or was cancelled carries how (`failure`, decoded).
   */
  async listJourneys(filter: JourneyFilter = {}): Promise<JourneyListing[]> {
    const listings = await this.listed(journeyListQuery(filter), toJourneyListing);
    return Promise.all(listings.map((listing) => this.withEnd(listing)));
  }

  /**
   * Resumes a journey parked in NEEDS_ATTENTION at the stage that was parked, optionally with
   * corrected customer details or ramps (each part given replaces that part of the input whole).
   * @returns the stage resumed
   */
  async retry(externalId: string, correctedInput?: CorrectedInput): Promise<{ resumed: string }> {
    const corrected = correctedInput === undefined ? undefined : parseCorrectedInput(parseExternalId(externalId), correctedInput);
    return this.onJourney(externalId, (handle) => handle.executeUpdate(retryUpdate, { args: [corrected ? { correctedInput: corrected } : {}] }), 'retry');
  }

  /** A retry among many (`retryAllJourneys`): the journey's resumed calls to the service wait behind signups and payouts. */
  private async retryInBulk(externalId: string): Promise<{ resumed: string }> {
    return this.onJourney(externalId, (handle) => handle.executeUpdate(retryUpdate, { args: [{ bulk: true }] }), 'retry');
  }

  /** Ends a journey parked in NEEDS_ATTENTION (it closes with the reason as its outcome). */
  async cancel(externalId: string, reason?: string): Promise<{ cancelled: true }> {
    return this.onJourney(externalId, (handle) => handle.executeUpdate(cancelUpdate, { args: [reason === undefined ? {} : { reason }] }), 'cancel');
  }

  /** Ends the customer relationship at any stage; deposits in flight finish on their own. */
  async closeCustomer(externalId: string, reason?: string): Promise<{ closed: true }> {
    return this.onJourney(externalId, (handle) => handle.executeUpdate(closeCustomerUpdate, { args: [reason === undefined ? {} : { reason }] }), 'closeCustomer');
  }

  /**
   * Retries every journey at `filter.stage` (NEEDS_ATTENTION) on this client's task queue, as
   * `retry(externalId)` would, at most `options.concurrency` (8) at once; see client/bulk.ts.
   * Journeys that moved on since they were listed are counted as refused, not failed.
   */
  async retryAllJourneys(filter: JourneyBulkFilter = {}, options: BulkOptions = {}): Promise<BulkReport> {
    return this.onEveryJourney(filter, options, (externalId) => this.retryInBulk(externalId));
  }

  /** Cancels every journey at `filter.stage` (NEEDS_ATTENTION) on this client's task queue, with `reason`. */
  async cancelAllJourneys(filter: JourneyBulkFilter = {}, options: BulkOptions & { reason?: string } = {}): Promise<BulkReport> {
    return this.onEveryJourney(filter, options, (externalId) => this.cancel(externalId, options.reason));
  }

  // ---- deposits ---------------------------------------------------------------------------------

  depositHandle(depositId: string): DepositHandle {
    return this.temporal.workflow.getHandle<typeof depositLifecycle>(depositWorkflowId(parseDepositId(depositId)));
  }

  /**
   * The deposit's whole state (the `depositState` query).
   * @throws RampflowWorkflowEndedError when the deposit's workflow failed, was terminated, timed out or was cancelled
   */
  async getDeposit(depositId: string): Promise<DepositState> {
    return stateOrEnd(this.depositHandle(depositId), `deposit ${depositId}`, (handle) => handle.query(depositStateQuery));
  }

  /** Deposits newest first, by stage and/or by the customer's externalId. */
  async listDeposits(filter: DepositFilter = {}): Promise<DepositListItem[]> {
    return this.listed(depositListQuery(filter), toDepositListItem);
  }

  /**
   * One page of deposits from Temporal visibility: a customer's whole history (however long) without
   * asking any workflow. In visibility's order: running deposits first, newest first, then ended ones,
   * the most recently ended first. Pass the returned `nextPageToken` to get the next page; it is absent
   * on the last one. Visibility is a moment behind the workflows.
   *
   * @throws RampflowInputError for a bad filter, page size (1 to 1000) or page token
   */
  async listDepositsPage(filter: DepositPageFilter, page: PageRequest = {}): Promise<DepositPage> {
    const { query, pageSize, nextPageToken } = depositPageQuery(filter, page);
    const { namespace, loadedDataConverter } = this.temporal.options;
    const response = await this.temporal.workflowService.listWorkflowExecutions({ namespace, query, pageSize, nextPageToken });
    const deposits = await Promise.all(
      response.executions.map(async (raw) => toDepositListItem(await executionInfoFromRaw(raw, loadedDataConverter, raw, namespace))),
    );
    const next = pageTokenText(query, response.nextPageToken);
    return { deposits, ...(next ? { nextPageToken: next } : {}) };
  }

  /** Every deposit `filter` selects, in `listDepositsPage`'s order, a page (`pageSize`, default 100) at a time. */
  async *iterateDeposits(filter: DepositPageFilter, options: { pageSize?: number } = {}): AsyncGenerator<DepositListItem> {
    let nextPageToken: string | undefined;
    do {
      const page = await this.listDepositsPage(filter, { ...options, ...(nextPageToken ? { nextPageToken } : {}) });
      yield* page.deposits;
      nextPageToken = page.nextPageToken;
    } while (nextPageToken);
  }

  /**
   * Sends the document the service asked for to a deposit in ACTION_REQUIRED. Resolves once the
   * service has accepted it. The bytes go to the attachment store; the workflow (and its history)
   * gets only their reference and SHA-256, and the worker reads them back by reference.
   */
  async submitAttachment(depositId: string, attachment: AttachmentFile): Promise<{ submitted: true }> {
    const checked = parseAttachment(attachment);
    const reference = await checkIn(this.attachmentStore, checked);
    return this.onDeposit(depositId, (handle) => handle.executeUpdate(submitAttachmentUpdate, { args: [reference] }), 'submitAttachment');
  }

  /** Resumes a deposit parked in NEEDS_ATTENTION at the step that was parked. */
  async retryDeposit(depositId: string): Promise<{ resumed: string }> {
    return this.onDeposit(depositId, (handle) => handle.executeUpdate(retryUpdate, { args: [{}] }), 'retry');
  }

  /** Ends a deposit parked in NEEDS_ATTENTION (CANCELLED, with the reason as its outcome). */
  async cancelDeposit(depositId: string, reason?: string): Promise<{ cancelled: true }> {
    return this.onDeposit(depositId, (handle) => handle.executeUpdate(cancelUpdate, { args: [reason === undefined ? {} : { reason }] }), 'cancel');
  }

  /**
   * Retries every deposit at `filter.stage` (NEEDS_ATTENTION) on this client's task queue, optionally
   * only one customer's, as `retryDeposit` would, at most `options.concurrency` (8) at once.
   */
  async retryAllDeposits(filter: DepositBulkFilter = {}, options: BulkOptions = {}): Promise<BulkReport> {
    return this.onEveryDeposit(filter, options, (depositId) => this.retryDeposit(depositId));
  }

  /** Cancels every deposit at `filter.stage` (NEEDS_ATTENTION) on this client's task queue, with `reason`. */
  async cancelAllDeposits(filter: DepositBulkFilter = {}, options: BulkOptions & { reason?: string } = {}): Promise<BulkReport> {
    return this.onEveryDeposit(filter, options, (depositId) => this.cancelDeposit(depositId, options.reason));
  }

  // ---- events ------------------------------------------------------------------------------------

  /**
   * Delivered webhooks that need an operator's eye, newest first: those parked for good
   * (EVENT_UNROUTED, with the park code and reason from their result) and those still looking for
   * their target (EVENT_WAITING). `all` lists every event.
   */
  async listEvents(filter: EventFilter = {}): Promise<EventReport[]> {
    const listings = await this.listed(eventListQuery(filter), toEventListing);
    return Promise.all(
      listings.map(async (listing): Promise<EventReport> => {
        if (listing.closeTime === undefined || listing.status !== 'COMPLETED') return this.withEnd(listing);
        const result = (await this.temporal.workflow.getHandle(listing.workflowId, listing.runId).result()) as RampEventResult;
        const { outcome, parkCode, reason, target } = result;
        return { ...listing, outcome, ...(parkCode ? { parkCode } : {}), ...(reason ? { reason } : {}), ...(target ? { target } : {}) };
      }),
    );
  }

  /**
   * Routes a finished event again from the start, once its cause is fixed (say, the journey it was
   * for now exists): the event's workflow is reset to its first workflow task, so it re-reads the
   * record and looks for the target afresh. A later delivery of the event would only be a duplicate,
   * which is why this exists. Targets apply each event key once, so replaying a routed event is harmless.
   */
  async replayEvent(workflowId: string, reason = 'replayed by an operator'): Promise<{ workflowId: string; runId: string }> {
    if (!/^event\/[^/]+\/.+/.test(workflowId)) throw new RampflowInputError([`workflowId: expected event/<EVENT>/<payload id>, got '${workflowId}'`]);
    const handle = this.temporal.workflow.getHandle(workflowId);
    const description = await handle.describe().catch((error: unknown) => {
      throw explainTemporalError(error, `event ${workflowId}`);
    });
    if (description.status.name === 'RUNNING') {
      throw new RampflowUpdateRefusedError('replay', `event ${workflowId}`, 'it is still running (looking for its target); replay it once it has ended');
    }
    const history = await handle.fetchHistory();
    const firstTask = history.events?.find((event) => event.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
    if (!firstTask?.eventId) throw new RampflowUpdateRefusedError('replay', `event ${workflowId}`, 'its history has no completed workflow task to go back to');
    const { runId } = await this.temporal.workflowService.resetWorkflowExecution({
      namespace: this.temporal.options.namespace,
      workflowExecution: { workflowId, runId: description.runId },
      workflowTaskFinishEventId: firstTask.eventId,
      reason,
      requestId: randomUUID(),
    });
    return { workflowId, runId: runId ?? '' };
  }

  /** Closes the connection if this client opened it. */
  async close(): Promise<void> {
    await this.release();
  }

  /** The listing, with how its workflow ended (decoded) when it failed, was terminated, timed out or was cancelled. */
  private async withEnd<L extends EndedRun>(listing: L): Promise<L & { failure?: EndFailure }> {
    if (!isEndStatus(listing.status)) return listing;
    const end = await readWorkflowEnd(this.temporal.workflow.getHandle(listing.workflowId), listing);
    return end ? { ...listing, failure: endJson(end).failure } : listing;
  }

  /** At most `limit` visibility listings for `query`, newest first. */
  private async listed<T>({ query, limit }: { query: string; limit: number }, toListing: (info: WorkflowExecutionInfo) => T): Promise<T[]> {
    const found: T[] = [];
    for await (const info of this.temporal.workflow.list({ query, pageSize: Math.min(limit, 1000) })) {
      found.push(toListing(info));
      if (found.length >= limit) break;
    }
    return found;
  }

  // ---- bulk actions ------------------------------------------------------------------------------

  private async onEveryJourney(filter: JourneyBulkFilter, options: BulkOptions, apply: (externalId: string) => Promise<unknown>): Promise<BulkReport> {
    const query = journeyBulkQuery({ stage: filter.stage ?? 'NEEDS_ATTENTION' }, this.taskQueue);
    const ids = await this.listedKeys(query, (info) => toJourneyListing(info).externalId);
    const action: BulkAction = { attentionOf: async (externalId) => (await this.getJourney(externalId)).attention, apply };
    return runBulk(ids, action, bulkErrorType(filter.errorType), checkedBulkOptions(options));
  }

  private async onEveryDeposit(filter: DepositBulkFilter, options: BulkOptions, apply: (depositId: string) => Promise<unknown>): Promise<BulkReport> {
    const query = depositBulkQuery({ stage: filter.stage ?? 'NEEDS_ATTENTION', externalId: filter.externalId }, this.taskQueue);
    const ids = await this.listedKeys(query, (info) => toDepositListItem(info).depositId);
    const action: BulkAction = { attentionOf: async (depositId) => (await this.getDeposit(depositId)).attention, apply };
    return runBulk(ids, action, bulkErrorType(filter.errorType), checkedBulkOptions(options));
  }

  /**
   * Every workflow the query finds, listed before anything is changed: the action works through
   * the set as it was when it started, and its progress can say how much of it is left.
   */
  private async listedKeys(query: string, keyOf: (info: WorkflowExecutionInfo) => string): Promise<string[]> {
    const keys: string[] = [];
    for await (const info of this.temporal.workflow.list({ query, pageSize: 1000 })) keys.push(keyOf(info));
    return keys;
  }

  // ---- errors an operator can read ----------------------------------------------------------------

  private onJourney<T>(externalId: string, call: (handle: JourneyHandle) => Promise<T>, update?: string): Promise<T> {
    return explained(this.journeyHandle(externalId), `journey ${externalId}`, call, update);
  }

  private onDeposit<T>(depositId: string, call: (handle: DepositHandle) => Promise<T>, update?: string): Promise<T> {
    return explained(this.depositHandle(depositId), `deposit ${depositId}`, call, update);
  }
}
