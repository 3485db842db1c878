/**
 * The partner and operator side of rampflow: start a customer's journey on signup, read its state,
 * list journeys by stage, and the operator's updates (retry, cancel, close, submit an attachment).
 * Everything a caller sends is validated before it reaches Temporal; every message is typed from the
 * shared definitions in workflows/messages.ts.
 */
import { randomUUID } from 'node:crypto';
import type { Client, WorkflowExecutionInfo, WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/common';
import type { DepositOutcome, depositLifecycle } from '../workflows/deposit';
import { depositWorkflowId, journeyWorkflowId } from '../workflows/ids';
import type { customerJourney, JourneyOutcome } from '../workflows/journey';
import type { JourneyRequest } from '../workflows/journey-input';
import {
  cancelUpdate,
  closeCustomerUpdate,
  depositStateQuery,
  journeyStateQuery,
  retryUpdate,
  submitAttachmentUpdate,
  type DepositState,
  type JourneyState,
} from '../workflows/messages';
import type { RampEventResult } from '../workflows/ramp-event-types';
import { RampExternalId, RampStage } from '../workflows/search-attributes';
import { attachmentStoreFromEnv, checkIn, type AttachmentFile, type AttachmentStore } from '../attachments';
import { explainTemporalError, RampflowInputError, RampflowUpdateRefusedError } from './errors';
import { parseAttachment, parseCorrectedInput, parseDepositId, parseExternalId, parseJourneyRequest, type CorrectedInput } from './input-validation';
import {
  depositListQuery,
  eventListQuery,
  journeyListQuery,
  toDepositListing,
  toEventListing,
  toJourneyListing,
  type DepositFilter,
  type DepositListing,
  type EventFilter,
  type EventListing,
  type JourneyFilter,
  type JourneyListing,
} from './visibility';

/** A listed event, with why it was parked once it has ended parked. */
export type EventReport = EventListing & Partial<Pick<RampEventResult, 'outcome' | 'parkCode' | 'reason' | 'target'>>;

export type JourneyHandle = WorkflowHandle<typeof customerJourney>;
export type DepositHandle = WorkflowHandle<typeof depositLifecycle>;
export type { JourneyOutcome, DepositOutcome };

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
    const { externalId } = input.customer;
    try {
      return await this.temporal.workflow.start<typeof customerJourney>('customerJourney', {
        workflowId: journeyWorkflowId(externalId),
        taskQueue: this.taskQueue,
        args: [input],
        // A running journey is returned as it is; an ended one makes the start fail (caught below).
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        // Indexed from the first moment, so the journey is listable before a worker has picked it up.
        typedSearchAttributes: [
          { key: RampExternalId, value: externalId },
          { key: RampStage, value: 'CREATING_CUSTOMER' },
        ],
        staticSummary: `customer journey of ${externalId}`,
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      return this.journeyHandle(externalId);
    }
  }

  /** A handle on the journey's latest run (it follows continue-as-new), e.g. to await `result()`. */
  journeyHandle(externalId: string): JourneyHandle {
    return this.temporal.workflow.getHandle<typeof customerJourney>(journeyWorkflowId(parseExternalId(externalId)));
  }

  /** The journey's whole state (the `journeyState` query); needs a worker to answer. */
  async getJourney(externalId: string): Promise<JourneyState> {
    return this.onJourney(externalId, (handle) => handle.query(journeyStateQuery));
  }

  /** Journeys newest first, optionally only those at one stage (e.g. NEEDS_ATTENTION). */
  async listJourneys(filter: JourneyFilter = {}): Promise<JourneyListing[]> {
    return this.listed(journeyListQuery(filter), toJourneyListing);
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

  /** Ends a journey parked in NEEDS_ATTENTION (it closes with the reason as its outcome). */
  async cancel(externalId: string, reason?: string): Promise<{ cancelled: true }> {
    return this.onJourney(externalId, (handle) => handle.executeUpdate(cancelUpdate, { args: [reason === undefined ? {} : { reason }] }), 'cancel');
  }

  /** Ends the customer relationship at any stage; deposits in flight finish on their own. */
  async closeCustomer(externalId: string, reason?: string): Promise<{ closed: true }> {
    return this.onJourney(externalId, (handle) => handle.executeUpdate(closeCustomerUpdate, { args: [reason === undefined ? {} : { reason }] }), 'closeCustomer');
  }

  // ---- deposits ---------------------------------------------------------------------------------

  depositHandle(depositId: string): DepositHandle {
    return this.temporal.workflow.getHandle<typeof depositLifecycle>(depositWorkflowId(parseDepositId(depositId)));
  }

  /** The deposit's whole state (the `depositState` query). */
  async getDeposit(depositId: string): Promise<DepositState> {
    return this.onDeposit(depositId, (handle) => handle.query(depositStateQuery));
  }

  /** Deposits newest first, by stage and/or by the customer's externalId. */
  async listDeposits(filter: DepositFilter = {}): Promise<DepositListing[]> {
    return this.listed(depositListQuery(filter), toDepositListing);
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
        if (listing.closeTime === undefined || listing.status !== 'COMPLETED') return listing;
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

  /** At most `limit` visibility listings for `query`, newest first. */
  private async listed<T>({ query, limit }: { query: string; limit: number }, toListing: (info: WorkflowExecutionInfo) => T): Promise<T[]> {
    const found: T[] = [];
    for await (const info of this.temporal.workflow.list({ query, pageSize: Math.min(limit, 1000) })) {
      found.push(toListing(info));
      if (found.length >= limit) break;
    }
    return found;
  }

  // ---- errors an operator can read ----------------------------------------------------------------

  private onJourney<T>(externalId: string, call: (handle: JourneyHandle) => Promise<T>, update?: string): Promise<T> {
    return this.explained(this.journeyHandle(externalId), `journey ${externalId}`, call, update);
  }

  private onDeposit<T>(depositId: string, call: (handle: DepositHandle) => Promise<T>, update?: string): Promise<T> {
    return this.explained(this.depositHandle(depositId), `deposit ${depositId}`, call, update);
  }

  private async explained<H extends WorkflowHandle, T>(handle: H, what: string, call: (handle: H) => Promise<T>, update?: string): Promise<T> {
    try {
      return await call(handle);
    } catch (error) {
      // The server answers an update to a finished workflow as if it did not exist; say which it is.
      if (update && error instanceof WorkflowNotFoundError) {
        const ended = await handle.describe().catch(() => undefined);
        if (ended) throw new RampflowUpdateRefusedError(update, what, `it has already ended (${ended.status.name})`, { cause: error });
      }
      throw explainTemporalError(error, what, update);
    }
  }
}
