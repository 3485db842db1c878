/**
 * The arithmetic of the partner-wide rate (workers/partner-rate.ts): shares that add up to the rate
 * whoever reads them, and its additive increase and multiplicative decrease. The mechanism itself,
 * with real worker processes, is test/workers/partner-rate.temporal.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { decreasedRate, increasedRate, shareOf } from '../../workers/partner-rate';

describe('the partner-wide rate', () => {
  it('is split over the workers so that the shares add up to it exactly', () => {
    for (const rate of [1, 2, 3, 4, 5, 6, 7, 40]) {
      for (const members of [['a'], ['b', 'a'], ['c', 'a', 'b'], ['d', 'c', 'b', 'a', 'e']]) {
        const shares = members.map((self) => shareOf(rate, members, self));
        expect(shares.reduce((sum, share) => sum + share, 0)).toBe(rate);
        expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
      }
    }
    // A worker the server does not list yet gets nothing; an identity listed twice counts once.
    expect(shareOf(6, ['a', 'b'], 'c')).toBe(0);
    expect(shareOf(6, ['a', 'a', 'b'], 'a')).toBe(3);
  });

  it("only grows each remaining worker's share when a worker leaves, so shares read before and after never add up to more", () => {
    for (const rate of [1, 3, 4, 5, 7, 40]) {
      const before = ['a', 'b', 'c', 'd'];
      for (const gone of before) {
        const after = before.filter((member) => member !== gone);
        const mixed = after.map((self) => Math.max(shareOf(rate, before, self), shareOf(rate, after, self)));
        expect(mixed.reduce((sum, share) => sum + share, 0)).toBeLessThanOrEqual(rate);
      }
    }
  });

  it('comes down by a quarter (at least one, never below one) and goes up by one or a tenth', () => {
    expect([40, 6, 4, 3, 2, 1].map(decreasedRate)).toEqual([30, 4, 3, 2, 1, 1]);
    expect([1, 3, 9, 10, 30].map(increasedRate)).toEqual([2, 4, 10, 11, 33]);
  });
});
