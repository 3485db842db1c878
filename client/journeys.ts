/**
 * The client's journey part: start a customer's journey on signup (alone, or with the `signup` update
 * in one round trip), read its state, list journeys by stage, and the operator's updates on one
 * journey (retry, cancel, close). RampflowClient (client/rampflow-client.ts) offers these as its own.
 */
import {
  type Client,
  WithStartWorkflowOperation,
  type WorkflowHandle,
  type WorkflowStartOptions,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { SIGNUP_WAIT_DEFAULT_SECONDS } from '../config/signup-wait';
import {
  cancelUpdate,
  closeCustomerUpdate,
  handOverRefusal,
  handOverSignal,
  JOURNEY_STAGES,
  type JourneyStage,
  type JourneyState,
  journeyStateQuery,
  journeyWorkflowId,
  retryUpdate,
  signupUpdate,
} from '../workflows/common/messages';
import type { customerJourney, JourneyOutcome } from '../workflows/journey/workflow';
import type { JourneyInput, JourneyRequest } from '../workflows/schemas';
import { RampExternalId, RampStage } from '../observability/search-attributes';
import { RampflowInputError } from './errors';
import { explained, stateOrEnd } from './explained';
import {
  type CorrectedInput,
  parseCorrectedInput,
  parseExternalId,
  parseJourneyRequest,
  parseSignupWait,
} from './input-validation';
import { listed, withEnd } from './listing';
import { startedOrExisting } from './start-once';
import { type JourneyFilter, type JourneyListing, journeyListQuery, toJourneyListing } from './visibility';
import { executeUpdateOnce } from './update-once';
import { resetStuckWorkflow, type StuckWorkflowReset } from './workflow-reset';

export type JourneyHandle = WorkflowHandle<typeof customerJourney>;
export type { JourneyOutcome };

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

export class JourneyOperations {
  /**
   * @param temporal a connected Temporal client (its namespace is the journeys' namespace)
   * @param taskQueue the task queue rampflow's workers poll
   */
  constructor(
    private readonly temporal: Client,
    private readonly taskQueue: string,
  ) {}

  /** A handle on the journey's latest run (it follows continue-as-new), e.g. to await `result()`. */
  journeyHandle(externalId: string): JourneyHandle {
    return this.temporal.workflow.getHandle<typeof customerJourney>(journeyWorkflowId(parseExternalId(externalId)));
  }

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
    // A running journey is returned as it is (USE_EXISTING); an ended one makes the start fail, and is returned.
    return startedOrExisting(
      () => this.temporal.workflow.start<typeof customerJourney>('customerJourney', this.journeyStartOptions(input)),
      () => this.journeyHandle(input.customer.externalId),
    );
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
    const startWorkflowOperation = new WithStartWorkflowOperation<typeof customerJourney>(
      'customerJourney',
      this.journeyStartOptions(input),
    );
    try {
      // The deadline bounds every call inside, the SDK's re-sends and polls for the update's outcome included.
      const answer = await this.temporal.connection.withDeadline(
        Date.now() + waitSeconds * 1000 + SIGNUP_GRACE_MS,
        () =>
          this.temporal.workflow.executeUpdateWithStart(signupUpdate, {
            args: [{ waitSeconds }],
            startWorkflowOperation,
          }),
      );
      return { handle: await startWorkflowOperation.workflowHandle(), ...answer };
    } catch (error) {
      // Ended (REJECT_DUPLICATE): as startJourney, the journey as it is. Not answered in time, or
      // refused by a worker that predates the update: the journey may or may not have started, so
      // start it (or find it) as startJourney does. Anything else (Temporal away) is the caller's.
      const unanswered =
        error instanceof WorkflowUpdateRPCTimeoutOrCancelledError || error instanceof WorkflowUpdateFailedError;
      if (!unanswered && !(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      const handle = unanswered ? await this.startJourney(input) : this.journeyHandle(input.customer.externalId);
      const stage = await this.indexedStage(handle);
      return { handle, ...(stage ? { stage } : {}) };
    }
  }

  /** How a journey is started, by `startJourney` and `signUp` alike. */
  private journeyStartOptions(
    input: JourneyInput,
  ): WorkflowStartOptions<typeof customerJourney> & { workflowIdConflictPolicy: 'USE_EXISTING' } {
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

  /**
   * The journey's whole state (the `journeyState` query); needs a worker to answer.
   * @throws RampflowWorkflowEndedError when the journey failed, was terminated, timed out or was
   *   cancelled: its `end` has the decoded type, message and fields (client/workflow-end.ts)
   */
  async getJourney(externalId: string): Promise<JourneyState> {
    return stateOrEnd(this.journeyHandle(externalId), `journey ${externalId}`, (handle) =>
      handle.query(journeyStateQuery),
    );
  }

  /**
   * Journeys newest first, optionally only those at one stage (e.g. NEEDS_ATTENTION). One that
   * failed, was terminated, timed out or was cancelled carries how (`failure`, decoded).
   */
  async listJourneys(filter: JourneyFilter = {}): Promise<JourneyListing[]> {
    const listings = await listed(this.temporal, journeyListQuery(filter), toJourneyListing);
    return Promise.all(listings.map((listing) => withEnd(this.temporal, listing)));
  }

  /**
   * Resumes a journey parked in NEEDS_ATTENTION at the stage that was parked, optionally with
   * corrected customer details or ramps (each part given replaces that part of the input whole).
   * @returns the stage resumed
   */
  async retry(externalId: string, correctedInput?: CorrectedInput): Promise<{ resumed: string }> {
    const corrected =
      correctedInput === undefined ? undefined : parseCorrectedInput(parseExternalId(externalId), correctedInput);
    return this.onJourney(
      externalId,
      (handle) => executeUpdateOnce(handle, retryUpdate, [corrected ? { correctedInput: corrected } : {}]),
      'retry',
    );
  }

  /** A retry among many (client/bulk-actions.ts): the journey's resumed calls to the service wait behind signups and payouts. */
  async retryInBulk(externalId: string): Promise<{ resumed: string }> {
    return this.onJourney(externalId, (handle) => executeUpdateOnce(handle, retryUpdate, [{ bulk: true }]), 'retry');
  }

  /**
   * Frees a journey whose workflow tasks fail every time (a nondeterminism its history holds): its
   * current run starts again from its first workflow task (client/workflow-reset.ts). Refused while
   * the journey is healthy or an activity of it is in flight.
   */
  async resetStuck(externalId: string, options: { dryRun?: boolean } = {}): Promise<StuckWorkflowReset> {
    return resetStuckWorkflow(
      this.temporal,
      journeyWorkflowId(parseExternalId(externalId)),
      `journey ${externalId}`,
      options,
    );
  }

  /** Ends a journey parked in NEEDS_ATTENTION (it closes with the reason as its outcome). */
  async cancel(externalId: string, reason?: string): Promise<{ cancelled: true }> {
    return this.onJourney(
      externalId,
      (handle) => executeUpdateOnce(handle, cancelUpdate, [reason === undefined ? {} : { reason }]),
      'cancel',
    );
  }

  /** Ends the customer relationship at any stage; deposits in flight finish on their own. */
  async closeCustomer(externalId: string, reason?: string): Promise<{ closed: true }> {
    return this.onJourney(
      externalId,
      (handle) => executeUpdateOnce(handle, closeCustomerUpdate, [reason === undefined ? {} : { reason }]),
      'closeCustomer',
    );
  }

  /**
   * Moves the journey to the workers of `taskQueue` (a new major version's, docs/deploying/versioning.md,
   * "Major versions"): the `handOver` signal, on which the journey continues as new there at its next
   * wait, carrying its whole state. A journey that has ended is refused (RampflowUpdateRefusedError);
   * one already on `taskQueue` ignores it.
   *
   * @throws RampflowInputError for a malformed task queue name, or this client's own task queue
   */
  async handOverJourney(externalId: string, taskQueue: string): Promise<void> {
    this.checkHandOverTarget(taskQueue);
    const id = parseExternalId(externalId);
    await this.onJourney(id, (handle) => handle.signal(handOverSignal, { taskQueue }), 'handOver');
  }

  /** Refuses, before anything reaches Temporal, a target the journeys on this client's task queue would ignore. */
  checkHandOverTarget(taskQueue: string): void {
    const refusal = handOverRefusal(taskQueue, this.taskQueue);
    if (refusal !== undefined) throw new RampflowInputError([`taskQueue: ${refusal}`]);
  }

  /** A call on the journey, its errors made readable for an operator (client/explained.ts). */
  private onJourney<T>(externalId: string, call: (handle: JourneyHandle) => Promise<T>, update?: string): Promise<T> {
    return explained(this.journeyHandle(externalId), `journey ${externalId}`, call, update);
  }
}
