/**
 * The journey's side of deposits' reports by update (workflows/common/deposit-reports.ts): the validator
 * refuses an offer while the journey hands over to its next run (the sender offers it again, and the
 * next run takes it), so a run that is draining can finish and no report is applied to a board that
 * has already been carried. Each report is applied once by its key, within a window carried through
 * continue-as-new, because a sender that lost the answer to an applied offer offers it again.
 */
import { setHandler } from '@temporalio/workflow';
import { AppliedKeys } from '../common/applied-keys';
import { checkDepositReports, describeIssues } from '../common/contract-checks';
import { depositReportsUpdate, HANDING_OVER, type DepositReport } from '../common/deposit-reports';
import type { DepositProgress } from '../common/messages';

/**
 * Report keys remembered: two offers' worth (a sender has at most one offer of MAX_REPORTS_PER_OFFER
 * in flight per journey), so an offer repeated after a lost answer is recognised. Carried through
 * continue-as-new at about 50 bytes a key: this window is most of what the journey carries.
 */
export const REPORT_KEYS_REMEMBERED = 200;

export class DepositReportIntake {
  private readonly applied: AppliedKeys;
  private handingOver = false;

  constructor(
    private readonly apply: (progress: DepositProgress) => void,
    carried: readonly string[] = [],
  ) {
    this.applied = new AppliedKeys(carried, REPORT_KEYS_REMEMBERED);
    setHandler(depositReportsUpdate, (reports) => this.take(reports), {
      validator: (reports: DepositReport[]) => {
        if (this.handingOver) throw new Error(HANDING_OVER);
        const checked = checkDepositReports(reports);
        if (!checked.ok) throw new Error(`invalid deposit reports: ${describeIssues(checked.issues)}`);
      },
    });
  }

  /** From now on offers are refused: the run is about to continue as new or end. */
  close(): void {
    this.handingOver = true;
  }

  carry(): string[] {
    return this.applied.carry();
  }

  private take(reports: DepositReport[]): { taken: number } {
    for (const { key, progress } of reports) this.applied.applyOnce(key, () => this.apply(progress));
    return { taken: reports.length };
  }
}
