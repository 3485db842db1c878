/**
 * Offers deposits' progress reports to their journeys by update (workflows/common/messages.ts), the
 * reports waiting for the same journey together: at most one offer per journey is in flight from a
 * sender (one per client: activities/journey-reports.ts), and the reports that arrive meanwhile go in
 * the next one (up to MAX_REPORTS_PER_OFFER). However fast reports come, a journey receives one update at a time from a
 * sender, each a workflow task's worth. The caller offers again what was refused (the deposit's
 * report activity by its retry policy).
 *
 * An offer whose answer is lost (the call timed out or the connection failed, so the journey may or may
 * not have taken it) is asked again at once, as the same update: within one run of the journey,
 * Temporal answers a repeated update id with the first one's outcome and never runs it twice, so the
 * journey takes the batch once however many of its answers are lost, beyond the window of report keys
 * it remembers (workflows/journey/run.ts). That window is left for the rest: an answer still
 * unknown after `unknownOutcomeBudgetMs` (the offer counts as refused and the report's next attempt is
 * a new update), and an ask that reaches the journey's next run after the first was taken.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client';
import { MAX_REPORTS_PER_OFFER } from '../workflows/common/contract';
import { depositReportsUpdate, HANDING_OVER, type DepositReport } from '../workflows/common/messages';

/**
 * - `taken`: the journey applied the report (or had already, under its key);
 * - `journey-gone`: no journey runs under that id (ended, or never started);
 * - `refused`: not taken now (the journey is handing over to its next run, the server held it back,
 *   the call failed): offer it again later.
 */
export type ReportOutcome = 'taken' | 'journey-gone' | 'refused';

interface Waiting {
  report: DepositReport;
  settle: (outcome: ReportOutcome) => void;
  /** The offer failed in a way offering again cannot mend (a bug): the caller's attempt fails with it. */
  fail: (error: unknown) => void;
  /** Told the update id of the offer the report goes out in, before it is sent. */
  sending?: ((updateId: string) => void) | undefined;
}

export interface OfferTimings {
  /** How long one offer waits for the journey's answer before it is asked again under its update id. */
  offerDeadlineMs: number;
  /** How long an offer whose answer is unknown keeps being asked before it counts as refused. */
  unknownOutcomeBudgetMs: number;
}

/**
 * Within the report activity's minute (workflows/deposit/run.ts, its JourneyReporter): an offer is asked for up to 30 s,
 * 10 s at a time, so a journey whose worker is briefly away still answers the same update.
 */
export const DEFAULT_OFFER_TIMINGS: OfferTimings = { offerDeadlineMs: 10_000, unknownOutcomeBudgetMs: 30_000 };

/** Pause between asking again an offer whose answer was lost: the server or the network had a moment. */
const ASK_AGAIN_AFTER_MS = 200;

export class JourneyReportSender {
  private readonly queues = new Map<string, Waiting[]>();

  constructor(
    private readonly client: Client,
    private readonly timings: OfferTimings = DEFAULT_OFFER_TIMINGS,
  ) {}

  /**
   * Offers one report to the journey; resolves once the journey took it, refused it or is gone.
   * `sending` is told the update id of the offer the report goes out in, before it is sent, so that a
   * caller that may die with the offer in flight can leave it for its next attempt (`takenEarlier`).
   */
  offer(journeyId: string, report: DepositReport, sending?: (updateId: string) => void): Promise<ReportOutcome> {
    return new Promise((settle, fail) => {
      const waiting = { report, settle, fail, sending };
      const queue = this.queues.get(journeyId);
      if (queue) {
        queue.push(waiting);
        return;
      }
      this.queues.set(journeyId, [waiting]);
      void this.drain(journeyId);
    });
  }

  /**
   * Whether the journey took an offer sent earlier under `updateId` (by an attempt that died waiting
   * for the answer): true once its run answers that the update completed. False when the journey's
   * current run has no record of it (never admitted, refused by the validator, or taken by an earlier
   * run) or its answer does not come within the offer deadline: the caller then offers the report
   * again, and the journey's key window is what recognises a repeat.
   */
  async takenEarlier(journeyId: string, updateId: string): Promise<boolean> {
    const update = this.client.workflow.getHandle(journeyId).getUpdateHandle(updateId);
    try {
      await this.client.withDeadline(Date.now() + this.timings.offerDeadlineMs, () => update.result());
      return true;
    } catch (error) {
      if (
        error instanceof WorkflowNotFoundError ||
        error instanceof WorkflowUpdateFailedError ||
        error instanceof WorkflowUpdateRPCTimeoutOrCancelledError
      )
        return false;
      throw error;
    }
  }

  /** Sends the journey's waiting reports, one offer at a time, until none wait. */
  private async drain(journeyId: string): Promise<void> {
    const queue = this.queues.get(journeyId)!;
    while (queue.length > 0) {
      const batch = queue.splice(0, MAX_REPORTS_PER_OFFER);
      // One id for every time this batch is asked: a repeat is the same update, never a second one.
      const updateId = randomUUID();
      try {
        for (const waiting of batch) waiting.sending?.(updateId);
        const outcome = await this.send(
          journeyId,
          batch.map((waiting) => waiting.report),
          updateId,
        );
        for (const waiting of batch) waiting.settle(outcome);
      } catch (error) {
        // Only this batch fails; the journey's queue goes on, so one bad offer never holds up the rest.
        for (const waiting of batch) waiting.fail(error);
      }
    }
    this.queues.delete(journeyId);
  }

  private async send(journeyId: string, reports: DepositReport[], updateId: string): Promise<ReportOutcome> {
    const journey = this.client.workflow.getHandle(journeyId);
    const askUntil = Date.now() + this.timings.unknownOutcomeBudgetMs;
    for (;;) {
      try {
        await this.client.withDeadline(Date.now() + this.timings.offerDeadlineMs, () =>
          journey.executeUpdate(depositReportsUpdate, { args: [reports], updateId }),
        );
        return 'taken';
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return 'journey-gone';
        if (error instanceof WorkflowUpdateFailedError) {
          // The validator's refusals: HANDING_OVER is for now; anything else (a malformed report) is a
          // bug in the sender, which offering again cannot fix.
          if (String(error.cause?.message).includes(HANDING_OVER)) return 'refused';
          throw error;
        }
        // Anything else leaves the outcome unknown: the journey may have taken the batch.
        if (Date.now() >= askUntil) return 'refused';
        await sleep(ASK_AGAIN_AFTER_MS);
      }
    }
  }
}
