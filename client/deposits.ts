/**
 * The client's deposit part: read a deposit's state, list deposits (at most so many, or a customer's
 * whole history page by page), and the operator's updates on one deposit (retry, cancel).
 * RampflowClient (client/rampflow-client.ts) offers these as its own.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers';
import type { depositLifecycle, DepositOutcome } from '../workflows/deposit/workflow';
import {
  cancelUpdate,
  type DepositState,
  depositStateQuery,
  depositWorkflowId,
  retryUpdate,
} from '../workflows/common/messages';
import { explained, stateOrEnd } from './explained';
import { parseDepositId } from './input-validation';
import { listed } from './listing';
import {
  type DepositFilter,
  type DepositListItem,
  depositListQuery,
  type DepositPage,
  type DepositPageFilter,
  depositPageQuery,
  type PageRequest,
  pageTokenText,
  toDepositListItem,
} from './visibility';
import { executeUpdateOnce } from './update-once';
import { resetStuckWorkflow, type StuckWorkflowReset } from './workflow-reset';

export type DepositHandle = WorkflowHandle<typeof depositLifecycle>;
export type { DepositOutcome };

export class DepositOperations {
  /** @param temporal a connected Temporal client (its namespace is the deposits' namespace) */
  constructor(private readonly temporal: Client) {}

  depositHandle(depositId: string): DepositHandle {
    return this.temporal.workflow.getHandle<typeof depositLifecycle>(depositWorkflowId(parseDepositId(depositId)));
  }

  /**
   * The deposit's whole state (the `depositState` query).
   * @throws RampflowWorkflowEndedError when the deposit's workflow failed, was terminated, timed out or was cancelled
   */
  async getDeposit(depositId: string): Promise<DepositState> {
    return stateOrEnd(this.depositHandle(depositId), `deposit ${depositId}`, (handle) =>
      handle.query(depositStateQuery),
    );
  }

  /** Deposits newest first, by stage and/or by the customer's externalId. */
  async listDeposits(filter: DepositFilter = {}): Promise<DepositListItem[]> {
    return listed(this.temporal, depositListQuery(filter), toDepositListItem);
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
    const response = await this.temporal.workflowService.listWorkflowExecutions({
      namespace,
      query,
      pageSize,
      nextPageToken,
    });
    const deposits = await Promise.all(
      response.executions.map(async (raw) =>
        toDepositListItem(await executionInfoFromRaw(raw, loadedDataConverter, raw, namespace)),
      ),
    );
    const next = pageTokenText(query, response.nextPageToken);
    return { deposits, ...(next ? { nextPageToken: next } : {}) };
  }

  /** Every deposit `filter` selects, in `listDepositsPage`'s order, a page (`pageSize`, default 100) at a time. */
  async *iterateDeposits(
    filter: DepositPageFilter,
    options: { pageSize?: number } = {},
  ): AsyncGenerator<DepositListItem> {
    let nextPageToken: string | undefined;
    do {
      const page = await this.listDepositsPage(filter, { ...options, ...(nextPageToken ? { nextPageToken } : {}) });
      yield* page.deposits;
      nextPageToken = page.nextPageToken;
    } while (nextPageToken);
  }

  /** Resumes a deposit parked in NEEDS_ATTENTION at the step that was parked. */
  async retryDeposit(depositId: string): Promise<{ resumed: string }> {
    return this.onDeposit(depositId, (handle) => executeUpdateOnce(handle, retryUpdate, [{}]), 'retry');
  }
  /** Frees a deposit whose workflow tasks fail every time, as JourneyOperations.resetStuck does a journey. */
  async resetStuckDeposit(depositId: string, options: { dryRun?: boolean } = {}): Promise<StuckWorkflowReset> {
    return resetStuckWorkflow(
      this.temporal,
      depositWorkflowId(parseDepositId(depositId)),
      `deposit ${depositId}`,
      options,
    );
  }

  /** Ends a deposit parked in NEEDS_ATTENTION (CANCELLED, with the reason as its outcome). */
  async cancelDeposit(depositId: string, reason?: string): Promise<{ cancelled: true }> {
    return this.onDeposit(
      depositId,
      (handle) => executeUpdateOnce(handle, cancelUpdate, [reason === undefined ? {} : { reason }]),
      'cancel',
    );
  }

  /** A call on the deposit, its errors made readable for an operator (client/explained.ts). */
  onDeposit<T>(depositId: string, call: (handle: DepositHandle) => Promise<T>, update?: string): Promise<T> {
    return explained(this.depositHandle(depositId), `deposit ${depositId}`, call, update);
  }
}
