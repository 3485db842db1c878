/**
 * Offers deposits' progress reports to their journeys by update (workflows/deposit-reports.ts), the
 * reports waiting for the same journey together: at most one offer per journey is in flight from
 * this process, and the reports that arrive meanwhile go in the next one (up to
 * MAX_REPORTS_PER_OFFER). However fast reports come, a journey receives one update at a time from a
 * sender, each a workflow task's worth. The caller offers again what was refused (the deposit's
 * report activity by its retry policy); nothing here waits or retries beyond one offer.
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { depositReportsUpdate, HANDING_OVER, MAX_REPORTS_PER_OFFER, type DepositReport } from '../workflows/deposit-reports';

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
}

export class JourneyReportSender {
  private readonly queues = new Map<string, Waiting[]>();

  constructor(private readonly client: Client) {}

  /** Offers one report to the journey; resolves once the journey took it, refused it or is gone. */
  offer(journeyId: string, report: DepositReport): Promise<ReportOutcome> {
    return new Promise((settle) => {
      const queue = this.queues.get(journeyId);
      if (queue) {
        queue.push({ report, settle });
        return;
      }
      this.queues.set(journeyId, [{ report, settle }]);
      void this.drain(journeyId);
    });
  }

  /** Sends the journey's waiting reports, one offer at a time, until none wait. */
  private async drain(journeyId: string): Promise<void> {
    const queue = this.queues.get(journeyId)!;
    while (queue.length > 0) {
      const batch = queue.splice(0, MAX_REPORTS_PER_OFFER);
      const outcome = await this.send(journeyId, batch.map((waiting) => waiting.report));
      for (const waiting of batch) waiting.settle(outcome);
    }
    this.queues.delete(journeyId);
  }

  private async send(journeyId: string, reports: DepositReport[]): Promise<ReportOutcome> {
    try {
      await this.client.workflow.getHandle(journeyId).executeUpdate(depositReportsUpdate, { args: [reports] });
      return 'taken';
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return 'journey-gone';
      // The validator's refusals: HANDING_OVER is for now; anything else (a malformed report) is a bug
      // in the sender, which offering again cannot fix.
      if (error instanceof WorkflowUpdateFailedError && !String(error.cause?.message).includes(HANDING_OVER)) throw error;
      return 'refused';
    }
  }
}
