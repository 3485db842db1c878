/**
 * Deposits' progress reports to their journey, offered in batches by update (docs/guarantees/signal-storms.md).
 *
 * A signal lands in the journey's history whether or not the journey keeps up: a burst of a few
 * hundred a second to one journey outruns its workflow tasks, the server fails the task that fell
 * behind (more than 100 events buffered), the worker replays the whole run in one go and dies in
 * Node's async hooks (temporalio/sdk-typescript#939), and a journey under a steady storm can never
 * continue as new (each attempt finds new signals). An update is admitted only when the journey's
 * validator takes it: a report the journey cannot take now is refused without a trace in its history
 * and offered again by its sender. Reports waiting for the same journey go together, up to
 * MAX_REPORTS_PER_OFFER, in one update.
 */
import { defineUpdate } from '@temporalio/workflow';
import type { DepositProgress } from './messages';

/** Reports in one offer: one update's payload stays small (a report is a few hundred bytes). */
export const MAX_REPORTS_PER_OFFER = 100;

/**
 * One report, with a key its sender repeats when it offers it again (`<depositId>#<run>.<n>`, the n-th
 * report of that run of the deposit's workflow): the journey applies a key once.
 */
export interface DepositReport {
  key: string;
  progress: DepositProgress;
}

export interface DepositReportsAnswer {
  /** Reports the journey took (applied now, or already applied under the same key). */
  taken: number;
}

export const depositReportsUpdate = defineUpdate<DepositReportsAnswer, [DepositReport[]]>('depositReports');

/** The reason a journey refuses reports while it hands over to its next run: the sender offers them again. */
export const HANDING_OVER = 'the journey is continuing as new: offer the reports again';

export const depositReportKey = (depositId: string, run: string, n: number): string => `${depositId}#${run}.${n}`;
