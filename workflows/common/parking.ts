import { allHandlersFinished, ApplicationFailure, condition, setHandler } from '@temporalio/workflow';
import { isoNow, workflowNow } from './timings';
import { checkRetryRequest, type ContractIssue, describeIssues } from './checks';
import {
  type Attention,
  cancelUpdate,
  type EndRequest,
  HANDING_OVER,
  type RetryRequest,
  retryUpdate,
} from './messages';
import { ParkRequest } from './calls';
import { countParked, countResumed } from './showing';
import { lookQuietly, nextPollInterval } from './waiting';

/**
 * Parking for operators: a failure a retry cannot fix moves a workflow to NEEDS_ATTENTION with the
 * reason, and waits there until an operator resumes it with the `retry` update (optionally with
 * corrected input) or ends it with `cancel`. A parked workflow still hears the world: it ends at once
 * when it is told to (a close, the customer deleted), and a wait that was parked at its deadline
 * resumes by itself when the fact it waited for comes true after all (a late event, or a look at the
 * service, made with backoff for a bounded time).
 *
 * Every delivery a parked workflow hears grows its history, and nothing bounds how many come (a leaked
 * webhook token sends as many as it likes). So a workflow that parks with a `historyFull` check hands
 * its parking on when its history has grown (ParkedHistoryFull): its next run takes it up parked at
 * once, with the same attention (the same `since`) and its late looks where they stood, without
 * counting a second park or telling anyone it parked again.
 */
export type OperatorDecision =
  | { kind: 'retry'; request: RetryRequest }
  | { kind: 'cancel'; reason: string }
  /** The workflow was told to end while parked (`ended()` came true). */
  | { kind: 'ended' }
  /** The parked wait's fact came true by itself; the stage runs again. */
  | { kind: 'resolved' };

/**
 * Why a workflow refuses an operator's update, one named constructor per reason. A validator's
 * refusal (an Error) never enters the history; a handler's (an ApplicationFailure, typed) does, as the
 * update's outcome, so its words stay as recorded. The operator reads each as `retry refused by
 * journey user-42: <reason>` (client/errors.ts).
 */
export const Refused = {
  /** The request breaks the published contract: each issue names a field and a rule, never a value. */
  invalid: (what: string, issues: ContractIssue[]) => new Error(`invalid ${what}: ${describeIssues(issues)}`),
  notParked: (action: string) => new Error(`nothing to ${action}: the workflow is not in NEEDS_ATTENTION`),
  alreadyDecided: (kind: string) => new Error(`an operator already chose to ${kind}`),
  cancelBeingChecked: () => new Error("an operator's cancel is being checked"),
  /** The park is being handed to the next run: the decision would be lost with this one. */
  continuingAsNew: (action: string) =>
    new Error(`the workflow is continuing as new, still parked: send the ${action} again`),
  /** The journey is handing its state to its next run: a report offered now goes to that run (client/journey-report-sender.ts matches these words). */
  handingOver: () => new Error(HANDING_OVER),
  /** The workflow has ended (REJECTED, CLOSED): nothing is left to close. */
  ended: (stage: string) => new Error(`the journey has already ended (${stage})`),
  /** The workflow resumed by itself, or was decided, while a cancel's guard read the service. */
  leftWhileCancelChecked: () =>
    ApplicationFailure.nonRetryable(
      'nothing to cancel: the workflow left NEEDS_ATTENTION while its cancel was checked',
      'NotParked',
    ),
};

/** How a parked workflow keeps looking for a late fact: from the poll interval, doubling, to once a day. */
const LATE_LOOK_MAX_INTERVAL_MS = 24 * 60 * 60 * 1000;
/** ... and for this long after parking; then only an event or an operator moves it (its history stays short). */
const LATE_LOOK_SPAN_MS = 30 * 24 * 60 * 60 * 1000;

/** Where a parked workflow's late looks stand (absolute workflow times), for a run that continues it. */
export interface LateLookSchedule {
  /** When the looks stop. */
  until: number;
  /** The pause between the last look and the next (it doubles after each look). */
  intervalMs: number;
  /** When the next look is due. */
  lookAt: number;
}

/** A parking handed to the run that continues a parked workflow as new: a few fields, each bounded. */
export interface CarriedParking {
  attention: Attention;
  /** Whether the park waits for a late fact too (a deadline's park), and where its looks stand. */
  lateLooks?: LateLookSchedule;
}

/**
 * Runs `step` as the first step of a run that continues a parked one. A park with no late fact is
 * taken up at once, without running the step; a step that ends otherwise than parked found its fact
 * came true between the runs, and `ended` resolves the carried parking. A step that parks again
 * rebuilds the park, which takes the carried parking up.
 */
export async function takeUpCarriedPark<S>(
  carried: CarriedParking,
  step: () => Promise<S>,
  ended: () => void,
): Promise<S> {
  if (!carried.lateLooks) throw ParkRequest.carried(carried.attention);
  try {
    const next = await step();
    ended();
    return next;
  } catch (error) {
    if (!(error instanceof ParkRequest)) ended();
    throw error;
  }
}

/** Thrown by `park` when the history has grown: the workflow continues as new carrying `parking`. */
export class ParkedHistoryFull extends Error {
  constructor(readonly parking: CarriedParking) {
    super("the parked workflow's history is full");
    this.name = 'ParkedHistoryFull';
  }
}

/** How a park continues across runs. */
export interface ParkContinuity {
  /** True when the history has grown enough to continue as new. */
  historyFull: () => boolean;
  /** The parking the previous run handed on: this park takes it up instead of parking anew. */
  carried?: CarriedParking;
}

export class OperatorDesk {
  attention: Attention | undefined;
  private decision: OperatorDecision | undefined;

  /** Set while a cancel's guard is reading: a second decision waits for its answer. */
  private cancelGuarded = false;

  /**
   * Set once the park has handed its parking on: the run is closing (its partner events still being
   * recorded), so a decision now would be lost with it; the operator sends it again to the next run.
   */
  private handedOn = false;

  /**
   * Installs the `retry` and `cancel` update handlers, whose validators accept them only while parked.
   * `cancelGuard`, when given, runs before a cancel is accepted (a payout reads its payment) and
   * refuses it by throwing an ApplicationFailure: the operator's update fails with its message and the
   * workflow stays parked. `carried`, the attention of a parking the previous run handed on, is set
   * before any update can be validated, so an operator's retry or cancel sent as the new run starts is
   * accepted.
   */
  constructor(
    private readonly cancelGuard?: () => Promise<void>,
    carried?: Attention,
  ) {
    this.attention = carried;
    setHandler(
      retryUpdate,
      (request) => {
        this.decision = { kind: 'retry', request };
        return { resumed: this.attention?.stage ?? '' };
      },
      {
        validator: (request: RetryRequest) => {
          this.assertParked('retry');
          // A retry sent past the client (another SDK, the Temporal CLI) meets the contract here, before
          // a corrected input it does not allow replaces part of the journey's.
          const checked = checkRetryRequest(request ?? {});
          if (!checked.ok) throw Refused.invalid('retry request', checked.issues);
        },
      },
    );
    setHandler(
      cancelUpdate,
      (request) => (this.cancelGuard ? this.guardedCancel(request, this.cancelGuard) : this.acceptCancel(request)),
      {
        validator: (_request: EndRequest) => this.assertParked('cancel'),
      },
    );
  }

  private acceptCancel(request: EndRequest): { cancelled: true } {
    this.decision = { kind: 'cancel', reason: request.reason ?? 'cancelled by an operator' };
    return { cancelled: true as const };
  }

  private async guardedCancel(request: EndRequest, guard: () => Promise<void>): Promise<{ cancelled: true }> {
    this.cancelGuarded = true;
    try {
      await guard();
    } finally {
      this.cancelGuarded = false;
    }
    // The workflow may have resumed by itself, or been decided, while the guard read.
    if (!this.attention || this.decision) throw Refused.leftWhileCancelChecked();
    return this.acceptCancel(request);
  }

  private assertParked(what: string): void {
    if (!this.attention) throw Refused.notParked(what);
    if (this.decision) throw Refused.alreadyDecided(this.decision.kind);
    if (this.cancelGuarded) throw Refused.cancelBeingChecked();
    if (this.handedOn) throw Refused.continuingAsNew(what);
  }

  /**
   * Parks `stage` for the reason given and waits for an operator's decision, for `ended()`, or for
   * the request's late fact (`request.lateFact`) to come true. Throws ParkedHistoryFull once
   * `continuity.historyFull()` and its handlers have finished, unless it was decided meanwhile; with
   * `continuity.carried`, takes up that parking instead of parking anew.
   */
  async park(
    stage: string,
    request: ParkRequest,
    onParked: () => void | Promise<void>,
    ended: () => boolean = () => false,
    continuity: ParkContinuity,
  ): Promise<OperatorDecision> {
    const { carried } = continuity;
    let parkedShown: Promise<void> = Promise.resolve();
    if (carried) {
      // Counted and shown by the run that parked; a decision sent as this run started stands.
      this.attention = carried.attention;
    } else {
      this.attention = {
        reason: request.reason,
        stage,
        since: isoNow(),
        ...(request.errorType ? { errorType: request.errorType } : {}),
      };
      this.decision = undefined;
      countParked(stage, request.errorType);
      parkedShown = Promise.resolve(onParked());
    }
    const late = request.lateFact;
    const settled = () => this.decision !== undefined || ended() || (late?.settled() ?? false);
    // A delivery that hints the fact came true is looked at, however long the workflow has been parked.
    const hinted = () => late?.hints?.pending() ?? false;
    const full = () => continuity.historyFull();
    const fresh = (): LateLookSchedule => ({
      until: workflowNow() + LATE_LOOK_SPAN_MS,
      intervalMs: late!.firstIntervalMs,
      lookAt: workflowNow() + late!.firstIntervalMs,
    });
    const looks = late ? (carried?.lateLooks ?? fresh()) : undefined;
    /** Hands the parking on, after the handlers (and the parked workflow's showing) have finished, unless it settled meanwhile. */
    const handOn = async (): Promise<void> => {
      await parkedShown;
      await condition(allHandlersFinished);
      if (settled()) return;
      this.handedOn = true;
      throw new ParkedHistoryFull({ attention: this.attention!, ...(looks ? { lateLooks: { ...looks } } : {}) });
    };
    if (late && looks) {
      // As in a wait (workflows/common/waiting.ts): once a hint has been looked at, a hint never postpones
      // the next look, which is due from the last one.
      while (!settled() && workflowNow() < looks.until) {
        const untilLookMs = looks.lookAt - workflowNow();
        if (
          untilLookMs > 0 &&
          (await condition(
            () => settled() || hinted() || full(),
            Math.min(untilLookMs, Math.max(looks.until - workflowNow(), 1)),
            { summary: `parked: look again at ${late.what}` },
          ))
        ) {
          if (settled()) break;
          if (full()) {
            await handOn();
            continue;
          }
          await lookQuietly(late.hints!.look);
          continue;
        }
        await lookQuietly(late.poll);
        looks.intervalMs = nextPollInterval(looks.intervalMs, LATE_LOOK_MAX_INTERVAL_MS);
        looks.lookAt = workflowNow() + looks.intervalMs;
      }
    }
    while (!settled()) {
      await condition(() => settled() || hinted() || full());
      if (settled()) break;
      if (full()) await handOn();
      else if (late?.hints) await lookQuietly(late.hints.look);
    }
    const decision: OperatorDecision = this.decision ?? (ended() ? { kind: 'ended' } : { kind: 'resolved' });
    countResumed(stage, request.errorType, decision.kind);
    this.attention = undefined;
    this.decision = undefined;
    return decision;
  }

  /**
   * The parking the previous run handed on ended by itself between the runs (its fact came true):
   * counted as resumed, as the park that took it up would have.
   */
  resolveCarried(carried: CarriedParking): void {
    countResumed(carried.attention.stage, carried.attention.errorType, 'resolved');
    this.attention = undefined;
    this.decision = undefined;
  }
}
