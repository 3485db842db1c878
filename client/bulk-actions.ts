/**
 * The client's bulk actions (`rampflow journey retry --all`, ...): every journey or deposit parked at
 * a stage, listed from visibility, gets the update the single-workflow call sends, a bounded number
 * at a time (client/bulk.ts runs them and says why these are not Temporal batch operations).
 * RampflowClient (client/rampflow-client.ts) offers these as its own.
 */
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import type { DepositStage, JourneyStage } from '../workflows/common/messages';
import type { PayoutStage } from '../workflows/payout/messages';
import { runBulk, type BulkOptions, type BulkReport } from './bulk';
import type { DepositOperations } from './deposits';
import { RampflowInputError } from './errors';
import type { JourneyOperations } from './journeys';
import { PayoutClient } from './payouts';
import {
  depositBulkQuery,
  journeyBulkQuery,
  journeyHandOverQuery,
  payoutBulkQuery,
  toDepositListItem,
  toJourneyListing,
  toPayoutListing,
} from './visibility';

/** Which journeys a bulk action works through. */
export interface JourneyBulkFilter {
  /** Default NEEDS_ATTENTION, the only stage `retry` and `cancel` apply to. */
  stage?: JourneyStage;
  /** Only those whose attention has this error type (InvalidParameters, Unauthorised, Deadline, ...). */
  errorType?: string;
}

/** Where `handOverAllJourneys` moves the journeys to. */
export interface HandOverTarget {
  /** The task queue of the workers that take the journeys over (a new major version's, e.g. `rampflow-v1`). */
  toTaskQueue: string;
}

/** Which deposits a bulk action works through. */
export interface DepositBulkFilter {
  /** Default NEEDS_ATTENTION. */
  stage?: DepositStage;
  /** Only this customer's deposits. */
  externalId?: string;
  errorType?: string;
}

/** Which payouts a bulk action works through. */
export interface PayoutBulkFilter {
  /** Default NEEDS_ATTENTION. */
  stage?: PayoutStage;
  errorType?: string;
}

/** The workflows one bulk action works through, and how to read one's parking. */
interface BulkSet {
  query: string;
  keyOf: (info: WorkflowExecutionInfo) => string;
  attentionOf: (key: string) => Promise<{ errorType?: string; reason?: string } | undefined>;
  errorType: string | undefined;
}

function bulkErrorType(errorType: string | undefined): string | undefined {
  if (errorType !== undefined && !/^[A-Za-z]{1,64}$/.test(errorType))
    throw new RampflowInputError([
      `errorType: a type such as InvalidParameters, Unauthorised or Deadline, got '${errorType}'`,
    ]);
  return errorType;
}

function checkedBulkOptions<O extends BulkOptions>(options: O): O {
  const { concurrency } = options;
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 100)) {
    throw new RampflowInputError(['concurrency: a whole number from 1 to 100']);
  }
  return options;
}

export class BulkActions {
  /**
   * @param temporal a connected Temporal client
   * @param taskQueue only the workflows on this task queue are acted on
   */
  constructor(
    private readonly temporal: Client,
    private readonly taskQueue: string,
    private readonly journeys: JourneyOperations,
    private readonly deposits: DepositOperations,
  ) {}

  /**
   * Retries every journey at `filter.stage` (NEEDS_ATTENTION) on this client's task queue, as
   * `retry(externalId)` would, at most `options.concurrency` (8) at once; see client/bulk.ts.
   * Journeys that moved on since they were listed are counted as refused, not failed.
   */
  async retryAllJourneys(filter: JourneyBulkFilter = {}, options: BulkOptions = {}): Promise<BulkReport> {
    return this.onEvery(this.journeySet(filter), options, (externalId) => this.journeys.retryInBulk(externalId));
  }

  /** Cancels every journey at `filter.stage` (NEEDS_ATTENTION) on this client's task queue, with `reason`. */
  async cancelAllJourneys(
    filter: JourneyBulkFilter = {},
    options: BulkOptions & { reason?: string } = {},
  ): Promise<BulkReport> {
    return this.onEvery(this.journeySet(filter), options, (externalId) =>
      this.journeys.cancel(externalId, options.reason),
    );
  }

  /**
   * Hands every running journey on this client's task queue, at any stage, over to
   * `target.toTaskQueue` (`handOverJourney`), at most `options.concurrency` (8) at once. Each continues
   * as new there at its next wait; a journey that ended since it was listed is counted as refused.
   * Run it again until it lists none: a journey started on this queue meanwhile is handed over by the
   * next run (docs/deploying/versioning.md, "Major versions").
   *
   * @throws RampflowInputError for a malformed target or this client's own task queue, before anything is listed
   */
  async handOverAllJourneys(target: HandOverTarget, options: BulkOptions = {}): Promise<BulkReport> {
    const { toTaskQueue } = target;
    this.journeys.checkHandOverTarget(toTaskQueue);
    const set: BulkSet = {
      query: journeyHandOverQuery(this.taskQueue),
      keyOf: (info) => toJourneyListing(info).externalId,
      attentionOf: async () => undefined,
      errorType: undefined,
    };
    return this.onEvery(set, options, (externalId) => this.journeys.handOverJourney(externalId, toTaskQueue));
  }

  /**
   * Retries every deposit at `filter.stage` (NEEDS_ATTENTION) on this client's task queue, optionally
   * only one customer's, as `retryDeposit` would, at most `options.concurrency` (8) at once.
   */
  async retryAllDeposits(filter: DepositBulkFilter = {}, options: BulkOptions = {}): Promise<BulkReport> {
    return this.onEvery(this.depositSet(filter), options, (depositId) => this.deposits.retryDeposit(depositId));
  }

  /** Cancels every deposit at `filter.stage` (NEEDS_ATTENTION) on this client's task queue, with `reason`. */
  async cancelAllDeposits(
    filter: DepositBulkFilter = {},
    options: BulkOptions & { reason?: string } = {},
  ): Promise<BulkReport> {
    return this.onEvery(this.depositSet(filter), options, (depositId) =>
      this.deposits.cancelDeposit(depositId, options.reason),
    );
  }

  /**
   * Retries every payout at `filter.stage` (NEEDS_ATTENTION) on this client's task queue, as
   * `PayoutClient.retry` would (each looks its payment up before creating one, so none is paid twice).
   */
  async retryAllPayouts(filter: PayoutBulkFilter = {}, options: BulkOptions = {}): Promise<BulkReport> {
    return this.onEvery(this.payoutSet(filter), options, (reference) => this.payouts.retry(reference));
  }

  private get payouts(): PayoutClient {
    return new PayoutClient(this.temporal, this.taskQueue);
  }

  private payoutSet(filter: PayoutBulkFilter): BulkSet {
    return {
      query: payoutBulkQuery({ stage: filter.stage ?? 'NEEDS_ATTENTION' }, this.taskQueue),
      keyOf: (info) => toPayoutListing(info).reference,
      attentionOf: async (reference) => (await this.payouts.state(reference)).attention,
      errorType: filter.errorType,
    };
  }

  private journeySet(filter: JourneyBulkFilter): BulkSet {
    return {
      query: journeyBulkQuery({ stage: filter.stage ?? 'NEEDS_ATTENTION' }, this.taskQueue),
      keyOf: (info) => toJourneyListing(info).externalId,
      attentionOf: async (externalId) => (await this.journeys.getJourney(externalId)).attention,
      errorType: filter.errorType,
    };
  }

  private depositSet(filter: DepositBulkFilter): BulkSet {
    return {
      query: depositBulkQuery(
        { stage: filter.stage ?? 'NEEDS_ATTENTION', externalId: filter.externalId },
        this.taskQueue,
      ),
      keyOf: (info) => toDepositListItem(info).depositId,
      attentionOf: async (depositId) => (await this.deposits.getDeposit(depositId)).attention,
      errorType: filter.errorType,
    };
  }

  private async onEvery(
    set: BulkSet,
    options: BulkOptions,
    apply: (key: string) => Promise<unknown>,
  ): Promise<BulkReport> {
    const ids = await this.listedKeys(set.query, set.keyOf);
    return runBulk(
      ids,
      { attentionOf: set.attentionOf, apply },
      bulkErrorType(set.errorType),
      checkedBulkOptions(options),
    );
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
}
