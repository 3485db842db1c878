/**
 * The pieces that keep a journey's carried state and query answer the same size whatever the
 * customer's history: the deposit board, the applied-key window, exact sums, and the carry's upgrade
 * from the previous (unbounded) shape.
 */
import { describe, expect, it } from 'vitest';
import { AppliedKeys, APPLIED_KEYS_WINDOW } from '../../workflows/common/records';
import {
  addDecimal,
  applyDepositProgress,
  emptyDepositBoard,
  MAX_OPEN_DEPOSITS_SHOWN,
  RECENT_DEPOSITS_SHOWN,
  shownDeposit,
} from '../../workflows/journey/board';
import { isNewsForJourney } from '../../workflows/common/messages';
import { type CarriedJourney, takeUpCarriedJourney } from '../../workflows/journey/carry';
import { ApplicationFailure } from '@temporalio/common';
import type { DepositStage, DepositSummary } from '../../workflows/common/messages';

const summary = (depositId: string, stage: DepositStage, amount = '10.00'): DepositSummary => ({
  depositId,
  kind: 'ONRAMP',
  stage,
  amount,
  currency: 'AUD',
});

describe('the deposit board', () => {
  it('counts every deposit by stage, lists those in progress and the last few that ended', () => {
    const board = emptyDepositBoard();
    applyDepositProgress(board, { summary: summary('d1', 'RECEIVED') });
    applyDepositProgress(board, { summary: summary('d2', 'RECEIVED', '5.25') });
    applyDepositProgress(board, { summary: summary('d1', 'CONFIRMED'), previousStage: 'RECEIVED' });
    applyDepositProgress(board, { summary: summary('d1', 'COMPLETED'), previousStage: 'CONFIRMED' });
    applyDepositProgress(board, { summary: summary('d2', 'COMPLETED', '5.25'), previousStage: 'RECEIVED' });
    expect(board.byStage).toEqual({ COMPLETED: 2 });
    expect(board.completedTotals).toEqual({ AUD: '15.25' });
    expect(board.open).toEqual([]);
    expect(board.recent.map((shown) => shown.depositId)).toEqual(['d2', 'd1']);
    expect(shownDeposit(board, 'd1')?.stage).toBe('COMPLETED');
  });

  it('hears of a deposit when it opens, starts or stops needing someone, and ends; not at the steps between', () => {
    const heard = (path: DepositStage[], attentionAt?: number): DepositStage[] => {
      let reported: DepositStage | undefined;
      const reports: DepositStage[] = [];
      path.forEach((stage, at) => {
        if (!isNewsForJourney(reported, stage, at === attentionAt)) return;
        reports.push(stage);
        reported = stage;
      });
      return reports;
    };
    expect(heard(['RECEIVED', 'CONFIRMED', 'TRADE_CREATED', 'TRADE_SETTLED', 'PAYMENT_SETTLED', 'COMPLETED'])).toEqual([
      'RECEIVED',
      'COMPLETED',
    ]);
    expect(heard(['RECEIVED', 'ACTION_REQUIRED', 'CONFIRMED', 'TRADE_CREATED', 'COMPLETED'])).toEqual([
      'RECEIVED',
      'ACTION_REQUIRED',
      'CONFIRMED',
      'COMPLETED',
    ]);
    expect(heard(['RECEIVED', 'CONFIRMED', 'NEEDS_ATTENTION', 'CONFIRMED', 'TRADE_CREATED', 'CANCELLED'], 2)).toEqual([
      'RECEIVED',
      'NEEDS_ATTENTION',
      'CONFIRMED',
      'CANCELLED',
    ]);
    expect(heard(['RECEIVED', 'REJECTED'])).toEqual(['RECEIVED', 'REJECTED']);
  });

  it('stays the same size after 10,000 deposits, and its counts stay right for deposits it does not list', () => {
    const board = emptyDepositBoard();
    // 10,000 deposits, 200 of them in progress at once at the peak.
    for (let i = 0; i < 10_000; i += 1) {
      applyDepositProgress(board, { summary: summary(`d${i}`, 'RECEIVED') });
      if (i >= 200) {
        const old = `d${i - 200}`;
        applyDepositProgress(board, { summary: summary(old, 'CONFIRMED'), previousStage: 'RECEIVED' });
        applyDepositProgress(board, { summary: summary(old, 'COMPLETED'), previousStage: 'CONFIRMED' });
      }
    }
    expect(board.byStage).toEqual({ RECEIVED: 200, COMPLETED: 9_800 });
    expect(board.open).toHaveLength(MAX_OPEN_DEPOSITS_SHOWN);
    expect(board.openNotShown).toBe(200 - MAX_OPEN_DEPOSITS_SHOWN);
    expect(board.recent).toHaveLength(RECENT_DEPOSITS_SHOWN);
    expect(board.completedTotals).toEqual({ AUD: '98000.00' });
    expect(JSON.stringify(board).length).toBeLessThan(8_000);
  });

  it("replaces a listed deposit's summary when only its details change", () => {
    const board = emptyDepositBoard();
    applyDepositProgress(board, { summary: summary('d1', 'TRADE_CREATED') });
    applyDepositProgress(board, {
      summary: { ...summary('d1', 'TRADE_CREATED'), tradeId: 't1' },
      previousStage: 'TRADE_CREATED',
    });
    expect(board.byStage).toEqual({ TRADE_CREATED: 1 });
    expect(board.open).toEqual([{ ...summary('d1', 'TRADE_CREATED'), tradeId: 't1' }]);
  });
});

describe('the applied-key window', () => {
  it('applies a key once, and forgets only the oldest keys past the window', () => {
    const keys = new AppliedKeys();
    let applied = 0;
    for (let i = 0; i < APPLIED_KEYS_WINDOW + 10; i += 1) keys.applyOnce(`K/${i}`, () => (applied += 1));
    keys.applyOnce(`K/${APPLIED_KEYS_WINDOW}`, () => (applied += 1));
    expect(applied).toBe(APPLIED_KEYS_WINDOW + 10);
    expect(keys.carry()).toHaveLength(APPLIED_KEYS_WINDOW);
    // A continued run remembers the same window.
    const next = new AppliedKeys(keys.carry());
    next.applyOnce(`K/${APPLIED_KEYS_WINDOW + 9}`, () => (applied += 1));
    next.applyOnce('K/0', () => (applied += 1)); // past the window: applied again, and state only moves forward
    expect(applied).toBe(APPLIED_KEYS_WINDOW + 11);
  });
});

describe('exact decimal sums', () => {
  it('adds amounts of different precision exactly', () => {
    expect(addDecimal('0.1', '0.2')).toBe('0.3');
    expect(addDecimal('100.50', '0.005')).toBe('100.505');
    expect(addDecimal('0', '50')).toBe('50');
    expect(addDecimal('-1.5', '1.25')).toBe('-0.25');
    expect(() => addDecimal('1e3', '1')).toThrow(/not a decimal/);
  });
});

describe('the carried journey', () => {
  it('refuses, not retryable, a carry older than version 2: only v0.8.0 hands journeys to 1.0, carrying version 2', () => {
    const state = { externalId: 'u1', stage: 'ACTIVE', waitingFor: 'deposits', customer: { id: 'c1' }, deposits: [] };
    const version1 = { state, appliedEventKeys: ['CUSTOMER_APPROVED/c1'], pendingDepositEvents: [] };
    let refusal: unknown;
    try {
      takeUpCarriedJourney(version1 as unknown as CarriedJourney);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ApplicationFailure);
    expect(refusal).toMatchObject({ type: 'CarriedJourneyUnsupported', nonRetryable: true });
  });
});
