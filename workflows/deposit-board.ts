/**
 * The journey's view of its customer's deposits, kept to a fixed size whatever the customer's
 * history: a count per stage, completed amounts per currency, the deposits in progress (up to a cap)
 * and the last few that ended. Each deposit's own workflow is the record; this is the dashboard.
 */
import { addDecimal } from './decimal';
import type { DepositProgress, DepositStage, DepositSummary, JourneyDeposits } from './messages';

/** Deposits in progress listed by the journey; more are counted, not listed. */
export const MAX_OPEN_DEPOSITS_SHOWN = 25;
/** Deposits that ended, listed newest first. */
export const RECENT_DEPOSITS_SHOWN = 5;

const ENDED: readonly DepositStage[] = ['COMPLETED', 'REJECTED', 'CANCELLED'];
const hasEnded = (stage: DepositStage): boolean => ENDED.includes(stage);

export const emptyDepositBoard = (): JourneyDeposits => ({ byStage: {}, completedTotals: {}, open: [], openNotShown: 0, recent: [] });

/** Stages an operator looking at the journey must see while they last. */
const NEEDS_SOMEONE: readonly DepositStage[] = ['ACTION_REQUIRED', 'NEEDS_ATTENTION'];

/**
 * Whether a deposit's change of stage is news for its journey. The journey hears when a deposit
 * opens, when it starts or stops needing someone, and when it ends; the steps between (CONFIRMED,
 * TRADE_CREATED, ...) are the deposit's own business, readable from its workflow. Each report is a
 * signal (a billed action and a history event on a journey that lives for years), so a deposit costs
 * its journey two of them on the happy path instead of one per step.
 */
export function isNewsForJourney(reported: DepositStage | undefined, next: DepositStage, attentionChanged: boolean): boolean {
  if (reported === undefined || attentionChanged) return true;
  if (reported === next) return false;
  return hasEnded(next) || NEEDS_SOMEONE.includes(next) || NEEDS_SOMEONE.includes(reported);
}

/** Applies one progress report from a deposit's workflow to the board, in place. */
export function applyDepositProgress(board: JourneyDeposits, { summary, previousStage }: DepositProgress): void {
  const listedAt = board.open.findIndex((shown) => shown.depositId === summary.depositId);
  // The stage the board counted this deposit under: the listed one wins over what the deposit says,
  // since a report can only be missed by the journey, never doubled (signals are delivered once).
  const countedStage = listedAt !== -1 ? board.open[listedAt]!.stage : previousStage;
  if (countedStage === summary.stage) {
    if (listedAt !== -1) board.open[listedAt] = summary;
    return;
  }
  if (countedStage !== undefined) count(board, countedStage, -1);
  count(board, summary.stage, +1);

  const wasOpen = countedStage !== undefined && !hasEnded(countedStage);
  if (listedAt !== -1) board.open.splice(listedAt, 1);
  else if (wasOpen) board.openNotShown = Math.max(0, board.openNotShown - 1);

  if (hasEnded(summary.stage)) {
    if (summary.stage === 'COMPLETED') board.completedTotals[summary.currency] = addDecimal(board.completedTotals[summary.currency] ?? '0', summary.amount);
    board.recent = [summary, ...board.recent.filter((shown) => shown.depositId !== summary.depositId)].slice(0, RECENT_DEPOSITS_SHOWN);
  } else if (listedAt !== -1 || board.open.length < MAX_OPEN_DEPOSITS_SHOWN) {
    board.open.splice(listedAt === -1 ? board.open.length : listedAt, 0, summary);
  } else {
    board.openNotShown += 1;
  }
}

function count(board: JourneyDeposits, stage: DepositStage, by: number): void {
  const next = (board.byStage[stage] ?? 0) + by;
  if (next > 0) board.byStage[stage] = next;
  else delete board.byStage[stage];
}

/** Finds a deposit the board still lists (open or recently ended). */
export function shownDeposit(board: JourneyDeposits, depositId: string): DepositSummary | undefined {
  return board.open.find((shown) => shown.depositId === depositId) ?? board.recent.find((shown) => shown.depositId === depositId);
}
