/**
 * The journey's board when the service refunds a deposit it had confirmed (issue 23): REVERSED is an
 * ended stage; a completed deposit's amount moves from the completed totals to the reversed ones
 * (exactly, never below zero), one reversed from an open stage only moves counts, a reversal is final
 * (repeats and late reports change nothing), and a journey carried before reversals still upgrades.
 */
import { describe, expect, it } from 'vitest';
import {
  applyDepositProgress,
  emptyDepositBoard,
  MAX_OPEN_DEPOSITS_SHOWN,
  RECENT_DEPOSITS_SHOWN,
  REVERSALS_REMEMBERED,
} from '../../workflows/journey/board';
import { isNewsForJourney } from '../../workflows/common/messages';
import type { DepositProgress, DepositStage, DepositSummary, JourneyDeposits } from '../../workflows/common/messages';

const summary = (depositId: string, stage: DepositStage, amount = '10.00', currency = 'AUD'): DepositSummary => ({
  depositId,
  kind: 'ONRAMP',
  stage,
  amount,
  currency,
});

/** A board that has seen `d1` (100.50 AUD) and `d2` (0.005 AUD) complete. */
function boardWithCompleted(): JourneyDeposits {
  const board = emptyDepositBoard();
  applyDepositProgress(board, { summary: summary('d1', 'RECEIVED', '100.50') });
  applyDepositProgress(board, { summary: summary('d2', 'RECEIVED', '0.005') });
  applyDepositProgress(board, { summary: summary('d1', 'COMPLETED', '100.50'), previousStage: 'RECEIVED' });
  applyDepositProgress(board, { summary: summary('d2', 'COMPLETED', '0.005'), previousStage: 'RECEIVED' });
  return board;
}

const snapshot = (board: JourneyDeposits): JourneyDeposits => structuredClone(board);

describe('a deposit reversed after it completed', () => {
  it('leaves the completed totals for the reversed ones, exactly, moves its count and shows it first in recent', () => {
    const board = boardWithCompleted();
    expect(board.completedTotals).toEqual({ AUD: '100.505' });
    applyDepositProgress(board, { summary: summary('d1', 'REVERSED', '100.50'), previousStage: 'COMPLETED' });
    expect(board.completedTotals).toEqual({ AUD: '0.005' });
    expect(board.reversedTotals).toEqual({ AUD: '100.50' });
    expect(board.byStage).toEqual({ COMPLETED: 1, REVERSED: 1 });
    expect(board.recent.map((shown) => [shown.depositId, shown.stage])).toEqual([
      ['d1', 'REVERSED'],
      ['d2', 'COMPLETED'],
    ]);
    expect(board.open).toEqual([]);
    expect(board.reversedDepositIds).toEqual(['d1']);
  });

  it('takes it off the completed total the board counted, whatever stage the report names as previous', () => {
    const board = boardWithCompleted();
    // A sender that did not hear of the completion: the board, which lists d1 as COMPLETED, knows better.
    applyDepositProgress(board, { summary: summary('d1', 'REVERSED', '100.50'), previousStage: 'TRADE_SETTLED' });
    expect(board.completedTotals).toEqual({ AUD: '0.005' });
    expect(board.byStage).toEqual({ COMPLETED: 1, REVERSED: 1 });
  });

  it("takes a deposit no longer listed off by the report's previous stage, and the total stops at zero rather than go below it", () => {
    const board = emptyDepositBoard();
    applyDepositProgress(board, { summary: summary('small', 'COMPLETED', '3.10', 'USDT') });
    // 'big' completed while the board was not listening (its completion never counted): nothing of
    // it to take back beyond what the total holds, and the reversal is counted in full.
    applyDepositProgress(board, {
      summary: summary('big', 'REVERSED', '500.000001', 'USDT'),
      previousStage: 'COMPLETED',
    });
    expect(board.completedTotals).toEqual({ USDT: '0.000000' });
    expect(board.reversedTotals).toEqual({ USDT: '500.000001' });
    expect(board.byStage).toEqual({ REVERSED: 1 });
    // No completed total in a currency the board never counted: none is made up.
    applyDepositProgress(board, { summary: summary('eur', 'REVERSED', '7', 'EUR'), previousStage: 'COMPLETED' });
    expect(board.completedTotals).toEqual({ USDT: '0.000000' });
    expect(board.reversedTotals).toEqual({ USDT: '500.000001', EUR: '7' });
  });
});

describe('a deposit reversed before it completed', () => {
  it('from a listed open stage: only its count moves, it leaves the open list for recent, and it counts as reversed', () => {
    const board = emptyDepositBoard();
    applyDepositProgress(board, { summary: summary('d1', 'COMPLETED', '40.00') });
    applyDepositProgress(board, { summary: summary('d2', 'RECEIVED') });
    applyDepositProgress(board, { summary: summary('d2', 'CONFIRMED'), previousStage: 'RECEIVED' });
    applyDepositProgress(board, {
      summary: { ...summary('d2', 'REVERSED'), tradeId: 't2' },
      previousStage: 'CONFIRMED',
    });
    expect(board.byStage).toEqual({ COMPLETED: 1, REVERSED: 1 });
    expect(board.completedTotals).toEqual({ AUD: '40.00' });
    expect(board.reversedTotals).toEqual({ AUD: '10.00' });
    expect(board.open).toEqual([]);
    expect(board.recent[0]).toEqual({ ...summary('d2', 'REVERSED'), tradeId: 't2' });
  });

  it('from an open stage beyond the listed cap: the count of those not shown goes down', () => {
    const board = emptyDepositBoard();
    for (let i = 0; i <= MAX_OPEN_DEPOSITS_SHOWN; i += 1)
      applyDepositProgress(board, { summary: summary(`d${i}`, 'RECEIVED') });
    expect(board.openNotShown).toBe(1);
    applyDepositProgress(board, {
      summary: summary(`d${MAX_OPEN_DEPOSITS_SHOWN}`, 'REVERSED'),
      previousStage: 'RECEIVED',
    });
    expect(board.openNotShown).toBe(0);
    expect(board.byStage).toEqual({ RECEIVED: MAX_OPEN_DEPOSITS_SHOWN, REVERSED: 1 });
    expect(board.reversedTotals).toEqual({ AUD: '10.00' });
    expect(board.completedTotals).toEqual({});
  });

  it('is news for the journey from any stage the deposit last reported', () => {
    for (const reported of ['RECEIVED', 'CONFIRMED', 'TRADE_SETTLED', 'COMPLETED'] as const)
      expect(isNewsForJourney(reported, 'REVERSED', false)).toBe(true);
  });
});

describe('a reversal is final', () => {
  it('a repeated report changes nothing, even once the deposit has left recent', () => {
    const board = boardWithCompleted();
    const reversal: DepositProgress = { summary: summary('d1', 'REVERSED', '100.50'), previousStage: 'COMPLETED' };
    applyDepositProgress(board, reversal);
    const once = snapshot(board);
    applyDepositProgress(board, reversal);
    expect(board).toEqual(once);

    for (let i = 0; i < RECENT_DEPOSITS_SHOWN; i += 1)
      applyDepositProgress(board, { summary: summary(`later${i}`, 'REJECTED') });
    expect(board.recent.map((shown) => shown.depositId)).not.toContain('d1');
    const later = snapshot(board);
    applyDepositProgress(board, reversal);
    expect(board).toEqual(later);
  });

  it('a report sent before the reversal and delivered after it changes nothing (out of order)', () => {
    const board = emptyDepositBoard();
    applyDepositProgress(board, { summary: summary('d1', 'RECEIVED') });
    // The reversal (from another sender) overtakes the deposit's own completion report.
    applyDepositProgress(board, { summary: summary('d1', 'REVERSED'), previousStage: 'COMPLETED' });
    expect(board.completedTotals).toEqual({}); // the board never counted the completion, so takes nothing back
    const reversed = snapshot(board);
    applyDepositProgress(board, { summary: summary('d1', 'COMPLETED'), previousStage: 'RECEIVED' });
    applyDepositProgress(board, { summary: summary('d1', 'NEEDS_ATTENTION'), previousStage: 'RECEIVED' });
    expect(board).toEqual(reversed);
    expect(board.byStage).toEqual({ REVERSED: 1 });
    expect(board.reversedTotals).toEqual({ AUD: '10.00' });
  });

  it('an ended deposit moves only to REVERSED: a repeated or stale report of it changes nothing', () => {
    const board = boardWithCompleted();
    const ended = snapshot(board);
    applyDepositProgress(board, { summary: summary('d1', 'COMPLETED', '100.50'), previousStage: 'RECEIVED' });
    applyDepositProgress(board, { summary: summary('d2', 'NEEDS_ATTENTION', '0.005'), previousStage: 'COMPLETED' });
    expect(board).toEqual(ended);
  });

  it('the board stays bounded: the reversals remembered are capped, the totals one per currency', () => {
    const board = emptyDepositBoard();
    for (let i = 0; i < 1_000; i += 1) {
      applyDepositProgress(board, { summary: summary(`d${i}`, 'RECEIVED', '1.00', i % 2 === 0 ? 'AUD' : 'USDT') });
      applyDepositProgress(board, {
        summary: summary(`d${i}`, 'COMPLETED', '1.00', i % 2 === 0 ? 'AUD' : 'USDT'),
        previousStage: 'RECEIVED',
      });
      if (i % 4 < 2)
        applyDepositProgress(board, {
          summary: summary(`d${i}`, 'REVERSED', '1.00', i % 2 === 0 ? 'AUD' : 'USDT'),
          previousStage: 'COMPLETED',
        });
    }
    expect(board.reversedDepositIds).toHaveLength(REVERSALS_REMEMBERED);
    expect(board.reversedDepositIds[0]).toBe('d997');
    expect(board.byStage).toEqual({ COMPLETED: 500, REVERSED: 500 });
    expect(board.completedTotals).toEqual({ AUD: '250.00', USDT: '250.00' });
    expect(board.reversedTotals).toEqual({ AUD: '250.00', USDT: '250.00' });
    expect(JSON.stringify(board).length).toBeLessThan(8_000);
  });
});
