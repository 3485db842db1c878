/**
 * The arithmetic of the partner-wide rate (workers/partner-rate.ts): shares that add up to the rate
 * whoever reads them, and its additive increase and multiplicative decrease. The mechanism itself,
 * with real worker processes, is test/workers/partner-rate.temporal.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  CLAIM_WITHIN_MS,
  decreasedRate,
  GONE_AFTER_MS,
  increasedRate,
  membershipOf,
  shareOf,
} from '../../workers/partner-rate';

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

  it("is shared by the pollers heard from lately, reckoned on the server's clock alone, and claimed only by one heard more lately still", () => {
    const at = 1_800_000_000_000; // the newest poll the server heard of: any time, on the server's clock
    const heard = (identity: string, behindMs: number | undefined) => ({
      identity,
      heardAt: behindMs === undefined ? undefined : at - behindMs,
    });
    // A worker killed 101 s before the newest poll is gone; one 99 s behind still counts, and so does
    // one the server gives no time for. Each identity counts at its latest, whichever partition lists it.
    const pollers = [
      heard('live', 0),
      heard('killed', GONE_AFTER_MS + 1_000),
      heard('busy', GONE_AFTER_MS - 1_000),
      heard('untimed', undefined),
      heard('two-partitions', GONE_AFTER_MS + 5_000),
      heard('two-partitions', 10_000),
    ];
    expect(membershipOf(pollers, 'live')).toEqual({
      members: ['live', 'busy', 'untimed', 'two-partitions'],
      heard: true,
    });
    // Counted by the others, but unheard for longer than a claim allows: it takes nothing, so the
    // others, who still count it, never overlap its share.
    expect(membershipOf(pollers, 'busy').heard).toBe(false);
    expect(membershipOf([heard('a', 0), heard('b', CLAIM_WITHIN_MS)], 'b').heard).toBe(true);
    expect(membershipOf([heard('a', 0), heard('b', CLAIM_WITHIN_MS + 1)], 'b')).toEqual({
      members: ['a', 'b'],
      heard: false,
    });
    // The worker's own clock plays no part: the same pollers read alike at any time.
    const later = pollers.map((poller) => ({ ...poller, heardAt: poller.heardAt && poller.heardAt + 3_600_000 }));
    expect(membershipOf(later, 'live')).toEqual(membershipOf(pollers, 'live'));
    expect(membershipOf([], 'live')).toEqual({ members: [], heard: false });
  });
});
