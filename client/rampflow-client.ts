/**
 * The partner and operator side of rampflow, one object for every concern: a customer's journey
 * (client/journeys.ts), deposits (client/deposits.ts), the documents a deposit asks for
 * (client/attachments.ts), acting on every parked workflow at once (client/bulk-actions.ts) and
 * delivered webhooks (client/events.ts). Each method is the part's, documented there. Everything a
 * caller sends is validated before it reaches Temporal; every message is typed from the shared
 * definitions in workflows/common/messages.ts.
 */
import type { Client } from '@temporalio/client';
import { attachmentStoreFromEnv, type AttachmentFile, type AttachmentStore } from '../attachments';
import type { JourneyRequest } from '../workflows/schemas';
import { AttachmentOperations } from './attachments';
import type { BulkOptions } from './bulk';
import {
  BulkActions,
  type DepositBulkFilter,
  type HandOverTarget,
  type JourneyBulkFilter,
  type PayoutBulkFilter,
} from './bulk-actions';
import { DepositOperations } from './deposits';
import { EventOperations } from './events';
import type { CorrectedInput } from './input-validation';
import { JourneyOperations, type SignUpOptions } from './journeys';
import type { DepositFilter, DepositPageFilter, EventFilter, JourneyFilter, PageRequest } from './visibility';

export class RampflowClient {
  readonly journeys: JourneyOperations;
  readonly deposits: DepositOperations;
  readonly attachments: AttachmentOperations;
  readonly bulk: BulkActions;
  readonly events: EventOperations;

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
    attachmentStore: AttachmentStore = attachmentStoreFromEnv(),
  ) {
    this.journeys = new JourneyOperations(temporal, taskQueue);
    this.deposits = new DepositOperations(temporal);
    this.attachments = new AttachmentOperations(this.deposits, attachmentStore);
    this.bulk = new BulkActions(temporal, taskQueue, this.journeys, this.deposits);
    this.events = new EventOperations(temporal);
  }

  // ---- journeys (client/journeys.ts) ------------------------------------------------------------

  startJourney(request: JourneyRequest) {
    return this.journeys.startJourney(request);
  }
  signUp(request: JourneyRequest, options?: SignUpOptions) {
    return this.journeys.signUp(request, options);
  }
  journeyHandle(externalId: string) {
    return this.journeys.journeyHandle(externalId);
  }
  getJourney(externalId: string) {
    return this.journeys.getJourney(externalId);
  }
  listJourneys(filter?: JourneyFilter) {
    return this.journeys.listJourneys(filter);
  }
  retry(externalId: string, correctedInput?: CorrectedInput) {
    return this.journeys.retry(externalId, correctedInput);
  }
  cancel(externalId: string, reason?: string) {
    return this.journeys.cancel(externalId, reason);
  }
  closeCustomer(externalId: string, reason?: string) {
    return this.journeys.closeCustomer(externalId, reason);
  }
  resetStuckJourney(externalId: string, options?: { dryRun?: boolean }) {
    return this.journeys.resetStuck(externalId, options);
  }
  handOverJourney(externalId: string, taskQueue: string) {
    return this.journeys.handOverJourney(externalId, taskQueue);
  }

  // ---- deposits (client/deposits.ts) and their attachments (client/attachments.ts) -----------------

  depositHandle(depositId: string) {
    return this.deposits.depositHandle(depositId);
  }
  getDeposit(depositId: string) {
    return this.deposits.getDeposit(depositId);
  }
  listDeposits(filter?: DepositFilter) {
    return this.deposits.listDeposits(filter);
  }
  listDepositsPage(filter: DepositPageFilter, page?: PageRequest) {
    return this.deposits.listDepositsPage(filter, page);
  }
  iterateDeposits(filter: DepositPageFilter, options?: { pageSize?: number }) {
    return this.deposits.iterateDeposits(filter, options);
  }
  retryDeposit(depositId: string) {
    return this.deposits.retryDeposit(depositId);
  }
  cancelDeposit(depositId: string, reason?: string) {
    return this.deposits.cancelDeposit(depositId, reason);
  }
  resetStuckDeposit(depositId: string, options?: { dryRun?: boolean }) {
    return this.deposits.resetStuckDeposit(depositId, options);
  }
  submitAttachment(depositId: string, attachment: AttachmentFile) {
    return this.attachments.submitAttachment(depositId, attachment);
  }

  // ---- bulk actions (client/bulk-actions.ts) -------------------------------------------------------

  retryAllJourneys(filter?: JourneyBulkFilter, options?: BulkOptions) {
    return this.bulk.retryAllJourneys(filter, options);
  }
  cancelAllJourneys(filter?: JourneyBulkFilter, options?: BulkOptions & { reason?: string }) {
    return this.bulk.cancelAllJourneys(filter, options);
  }
  retryAllDeposits(filter?: DepositBulkFilter, options?: BulkOptions) {
    return this.bulk.retryAllDeposits(filter, options);
  }
  cancelAllDeposits(filter?: DepositBulkFilter, options?: BulkOptions & { reason?: string }) {
    return this.bulk.cancelAllDeposits(filter, options);
  }
  retryAllPayouts(filter?: PayoutBulkFilter, options?: BulkOptions) {
    return this.bulk.retryAllPayouts(filter, options);
  }
  handOverAllJourneys(target: HandOverTarget, options?: BulkOptions) {
    return this.bulk.handOverAllJourneys(target, options);
  }

  // ---- events (client/events.ts) -------------------------------------------------------------------

  listEvents(filter?: EventFilter) {
    return this.events.listEvents(filter);
  }
  replayEvent(workflowId: string, reason?: string) {
    return this.events.replayEvent(workflowId, reason);
  }

  /** Closes the connection if this client opened it. */
  async close(): Promise<void> {
    await this.release();
  }
}
