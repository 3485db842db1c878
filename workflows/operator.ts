/**
 * Parking for operators: a failure a retry cannot fix moves a workflow to NEEDS_ATTENTION with the
 * reason, and waits there until an operator resumes it with the `retry` update (optionally with
 * corrected input) or ends it with `cancel`. A parked workflow still hears the world: it ends at once
 * when it is told to (a close, the customer deleted), and a wait that was parked at its deadline
 * resumes by itself when the fact it waited for comes true after all (a late event, or a look at the
 * service, made with backoff for a bounded time).
 */
import { ApplicationFailure, condition, setHandler } from '@temporalio/workflow';
import { isoNow, workflowNow } from './clock';
import { checkRetryRequest, describeIssues } from './contract-checks';
import type { EndRequest, RetryRequest } from './messages';
import { cancelUpdate, retryUpdate, type Attention } from './messages';
import { HINTS_NEVER_DELAY_FACTS, takesPatch } from './patches';
import type { ParkRequest } from './service-failures';
import { countParked, countResumed } from './stage-metrics';
import { lookQuietly, nextPollInterval } from './waiting';

export type OperatorDecision =
  | { kind: 'retry'; request: RetryRequest }
  | { kind: 'cancel'; reason: string }
  /** The workflow was told to end while parked (`ended()` came true). */
  | { kind: 'ended' }
  /** The parked wait's fact came true by itself; the stage runs again. */
  | { kind: 'resolved' };

/** How a parked workflow keeps looking for a late fact: from the poll interval, doubling, to once a day. */
const LATE_LOOK_MAX_INTERVAL_MS = 24 * 60 * 60 * 1000;
/** ... and for this long after parking; then only an event or an operator moves it (its history stays short). */
const LATE_LOOK_SPAN_MS = 30 * 24 * 60 * 60 * 1000;

export class OperatorDesk {
  attention: Attention | undefined;
  private decision: OperatorDecision | undefined;

  /** Set while a cancel's guard is reading: a second decision waits for its answer. */
  private cancelGuarded = false;

  /**
   * Installs the `retry` and `cancel` update handlers, whose validators accept them only while parked.
   * `cancelGuard`, when given, runs before a cancel is accepted (a payout reads its payment) and
   * refuses it by throwing an ApplicationFailure: the operator's update fails with its message and the
   * workflow stays parked.
   */
  constructor(private readonly cancelGuard?: () => Promise<void>) {
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
          if (!checked.ok) throw new Error(`invalid retry request: ${describeIssues(checked.issues)}`);
        },
      },
    );
    setHandler(cancelUpdate, (request) => (this.cancelGuard ? this.guardedCancel(request, this.cancelGuard) : this.acceptCancel(request)), {
      validator: (_request: EndRequest) => this.assertParked('cancel'),
    });
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
    if (!this.attention || this.decision) throw ApplicationFailure.nonRetryable('nothing to cancel: the workflow left NEEDS_ATTENTION while its cancel was checked', 'NotParked');
    return this.acceptCancel(request);
  }

  private assertParked(what: string): void {
    if (!this.attention) throw new Error(`nothing to ${what}: the workflow is not in NEEDS_ATTENTION`);
    if (this.decision) throw new Error(`an operator already chose to ${this.decision.kind}`);
    if (this.cancelGuarded) throw new Error('an operator\'s cancel is being checked');
  }

  /**
   * Parks `stage` for the reason given and waits for an operator's decision, for `ended()`, or for
   * the request's late fact (`request.lateFact`) to come true.
   */
  async park(stage: string, request: ParkRequest, onParked: () => void, ended: () => boolean = () => false): Promise<OperatorDecision> {
    this.attention = { reason: request.reason, stage, since: isoNow(), ...(request.errorType ? { errorType: request.errorType } : {}) };
    this.decision = undefined;
    countParked(stage, request.errorType);
    onParked();
    const late = request.lateFact;
    const settled = () => this.decision !== undefined || ended() || (late?.settled() ?? false);
    // A delivery that hints the fact came true is looked at, however long the workflow has been parked.
    const hinted = () => late?.hints?.pending() ?? false;
    if (late) {
      const lookUntil = workflowNow() + LATE_LOOK_SPAN_MS;
      let intervalMs = late.firstIntervalMs;
      // As in a wait (workflows/waiting.ts): once a hint has been looked at, a hint never postpones
      // the next look, which is due from the last one (HINTS_NEVER_DELAY_FACTS).
      let lookAt = workflowNow() + intervalMs;
      let keepsSchedule = false;
      while (!settled() && workflowNow() < lookUntil) {
        const untilLookMs = keepsSchedule ? lookAt - workflowNow() : intervalMs;
        if (untilLookMs > 0 && (await condition(() => settled() || hinted(), Math.min(untilLookMs, Math.max(lookUntil - workflowNow(), 1)), { summary: `parked: look again at ${late.what}` }))) {
          if (settled()) break;
          await lookQuietly(late.hints!.look);
          keepsSchedule ||= takesPatch(HINTS_NEVER_DELAY_FACTS);
          continue;
        }
        await lookQuietly(late.poll);
        intervalMs = nextPollInterval(intervalMs, LATE_LOOK_MAX_INTERVAL_MS);
        lookAt = workflowNow() + intervalMs;
      }
    }
    while (!settled()) {
      await condition(() => settled() || hinted());
      if (!settled() && late?.hints) await lookQuietly(late.hints.look);
    }
    const decision: OperatorDecision = this.decision ?? (ended() ? { kind: 'ended' } : { kind: 'resolved' });
    countResumed(stage, request.errorType, decision.kind);
    this.attention = undefined;
    this.decision = undefined;
    return decision;
  }
}
