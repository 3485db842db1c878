/**
 * How a deposit tells its journey of its progress. Deposits of this code offer each report by update
 * through an activity (workflows/common/deposit-reports.ts, docs/guarantees/signal-storms.md); deposits
 * recorded before the patch DEPOSIT_REPORTS_OFFERED replay with the signal they sent.
 */
import { getExternalWorkflowHandle, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { JourneyReportActivities } from '../../activities/journey-reports';
import { depositReportKey } from '../common/deposit-reports';
import { depositProgressSignal, type DepositProgress } from '../common/messages';
import { DEPOSIT_REPORTS_OFFERED, takesPatch } from '../common/patches';

/**
 * Offered until the journey takes it or is gone, however long a storm keeps it waiting: a report is
 * never dropped. The backoff is capped low, so a report refused during a journey's hand-over to its
 * next run goes to that run within seconds.
 */
const reporter = proxyActivities<JourneyReportActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds' },
  summary: 'report progress to the journey',
});

/** Where a deposit's reports stand, for its next run (continue-as-new): its keys go on from there. */
export interface CarriedReports {
  run: string;
  offered: number;
}

export class JourneyReporter {
  /** Reports offered so far: the n-th report's key is the same on every attempt. */
  private offered: number;
  /**
   * The run's start: a deposit can run again under its id (a refund after it ended starts a run of
   * its own), and that run's reports are news, not repeats of the first run's. A run that continues
   * another as new keeps its run and count: its reports go on the same sequence of keys.
   */
  private readonly run: string;

  constructor(
    private readonly depositId: string,
    carried?: CarriedReports,
  ) {
    this.run = carried?.run ?? workflowInfo().runStartTime.getTime().toString(36);
    this.offered = carried?.offered ?? 0;
  }

  carry(): CarriedReports {
    return { run: this.run, offered: this.offered };
  }

  /** Tells the journey; false when it is not running (ended, or never started). */
  async report(journeyId: string, progress: DepositProgress): Promise<boolean> {
    if (!takesPatch(DEPOSIT_REPORTS_OFFERED)) {
      try {
        await getExternalWorkflowHandle(journeyId).signal(depositProgressSignal, progress);
        return true;
      } catch {
        return false;
      }
    }
    this.offered += 1;
    return reporter.reportToJourney({
      journeyId,
      report: { key: depositReportKey(this.depositId, this.run, this.offered), progress },
    });
  }
}
