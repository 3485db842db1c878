/**
 * The journey's view of its customer's deposits, kept to a fixed size whatever the customer's
 * history: a count per stage, completed and reversed amounts per currency, the deposits in progress
 * (up to a cap), the last few that ended and the last few reversed. Each deposit's own workflow is the
 * record; this is the dashboard.
 *
 * State only moves forward: an ended deposit (COMPLETED, REJECTED, CANCELLED) moves again only to
 * REVERSED, when the service refunds it (DESIGN, "Trust": a refund is a fact, read and shown), and a
 * REVERSED deposit never moves again.
 */
import {
  depositHasEnded as hasEnded,
  type DepositProgress,
  type DepositStage,
  type DepositSummary,
  type JourneyDeposits,
} from '../common/messages';

/** Deposits in progress listed by the journey; more are counted, not listed. */
export const MAX_OPEN_DEPOSITS_SHOWN = 25;
/** Deposits that ended, listed newest first. */
export const RECENT_DEPOSITS_SHOWN = 5;
/**
 * Reversed deposits remembered, so that a report repeated after more deposits have ended (and left
 * `recent`) still cannot take the same amount off the totals twice. Refunds are rare; a repeat after
 * this many later reversals is the one the board cannot tell from news.
 */
export const REVERSALS_REMEMBERED = 20;

export const emptyDepositBoard = (): JourneyDeposits => ({
  byStage: {},
  completedTotals: {},
  reversedTotals: {},
  reversedDepositIds: [],
  open: [],
  openNotShown: 0,
  recent: [],
});

/** Applies one progress report from a deposit's workflow to the board, in place; whether it moved the deposit to a new stage. */
export function applyDepositProgress(board: JourneyDeposits, { summary, previousStage }: DepositProgress): boolean {
  // A reversal is final: a report of a reversed deposit is a repeat, or one sent before the reversal
  // and delivered after it (a reversal can come from another sender than the deposit's own workflow).
  if (board.reversedDepositIds.includes(summary.depositId)) return false;
  const listedAt = board.open.findIndex((shown) => shown.depositId === summary.depositId);
  // The stage the board counted this deposit under: the listed one (open, or recently ended) wins
  // over what the report says, since the board knows what it counted and a sender may not.
  const countedStage =
    listedAt !== -1
      ? board.open[listedAt]!.stage
      : (board.recent.find((shown) => shown.depositId === summary.depositId)?.stage ?? previousStage);
  if (countedStage === summary.stage) {
    if (listedAt !== -1) board.open[listedAt] = summary;
    return false;
  }
  // An ended deposit moves only when the service reverses it; any other report of it is stale.
  if (countedStage !== undefined && hasEnded(countedStage) && summary.stage !== 'REVERSED') return false;
  if (countedStage !== undefined) count(board, countedStage, -1);
  count(board, summary.stage, +1);

  const wasOpen = countedStage !== undefined && !hasEnded(countedStage);
  if (listedAt !== -1) board.open.splice(listedAt, 1);
  else if (wasOpen) board.openNotShown = Math.max(0, board.openNotShown - 1);

  if (hasEnded(summary.stage)) {
    if (summary.stage === 'COMPLETED')
      board.completedTotals[summary.currency] = addDecimal(
        board.completedTotals[summary.currency] ?? '0',
        summary.amount,
      );
    if (summary.stage === 'REVERSED') reverse(board, summary, countedStage === 'COMPLETED');
    board.recent = [summary, ...board.recent.filter((shown) => shown.depositId !== summary.depositId)].slice(
      0,
      RECENT_DEPOSITS_SHOWN,
    );
  } else if (listedAt !== -1 || board.open.length < MAX_OPEN_DEPOSITS_SHOWN) {
    board.open.splice(listedAt === -1 ? board.open.length : listedAt, 0, summary);
  } else {
    board.openNotShown += 1;
  }
  return true;
}

/**
 * A deposit the service refunded: its amount is counted as reversed and, when the board had counted
 * it as completed, leaves the completed total. That total never goes below zero: a shortfall means
 * the board never counted this completion (a report it missed, or one that arrives after the
 * reversal and is then ignored), so there is nothing of it to take back, and the total stops at 0.
 * A deposit reversed from an open stage (CONFIRMED, TRADE_CREATED, ...) had not been counted as
 * completed, so only its count moves.
 */
function reverse(board: JourneyDeposits, summary: DepositSummary, countedAsCompleted: boolean): void {
  const completed = board.completedTotals[summary.currency];
  if (countedAsCompleted && completed !== undefined) {
    const left = addDecimal(completed, summary.amount.startsWith('-') ? summary.amount.slice(1) : `-${summary.amount}`);
    // Below zero: a zero of the same precision (the shortfall cancelled exactly).
    board.completedTotals[summary.currency] = left.startsWith('-') ? addDecimal(left, left.slice(1)) : left;
  }
  board.reversedTotals[summary.currency] = addDecimal(board.reversedTotals[summary.currency] ?? '0', summary.amount);
  board.reversedDepositIds = [summary.depositId, ...board.reversedDepositIds].slice(0, REVERSALS_REMEMBERED);
}

function count(board: JourneyDeposits, stage: DepositStage, by: number): void {
  const next = (board.byStage[stage] ?? 0) + by;
  if (next > 0) board.byStage[stage] = next;
  else delete board.byStage[stage];
}

/** Finds a deposit the board still lists (open or recently ended). */
export function shownDeposit(board: JourneyDeposits, depositId: string): DepositSummary | undefined {
  return (
    board.open.find((shown) => shown.depositId === depositId) ??
    board.recent.find((shown) => shown.depositId === depositId)
  );
}

// ---- amounts ---------------------------------------------------------------------------------------

/**
 * Exact sums of the service's decimal amounts ("100.50"), which floating point would round. Workflow
 * code may use BigInt: it is deterministic.
 */
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

function parse(value: string): { units: bigint; scale: number } {
  const match = DECIMAL.exec(value.trim());
  if (!match) throw new Error(`not a decimal amount: ${JSON.stringify(value)}`);
  const [, sign, whole, fraction = ''] = match;
  const units = BigInt(`${whole}${fraction}`);
  return { units: sign === '-' ? -units : units, scale: fraction.length };
}

/** a + b, exactly, with as many decimal places as the more precise of the two. */
export function addDecimal(a: string, b: string): string {
  const left = parse(a);
  const right = parse(b);
  const scale = Math.max(left.scale, right.scale);
  const sum = left.units * 10n ** BigInt(scale - left.scale) + right.units * 10n ** BigInt(scale - right.scale);
  const negative = sum < 0n;
  const digits = (negative ? -sum : sum).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = scale > 0 ? `.${digits.slice(digits.length - scale)}` : '';
  return `${negative ? '-' : ''}${whole}${fraction}`;
}
