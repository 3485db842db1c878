/**
 * The receiver budget's arithmetic on a clock the test moves: token buckets refill at their rate up
 * to their burst and say when to come again, and a claim is coalesced while in flight and within its
 * window, never after a failed send.
 */
import { describe, expect, it } from 'vitest';
import { HintCoalescing } from '../../webhooks/hint-coalescing';
import { OverBudget, ReceiverBudget } from '../../webhooks/receiver-budget';
import { KeyedBuckets } from '../../webhooks/token-buckets';

function clock() {
  let now = 0;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('keyed token buckets', () => {
  it('grant a burst, then the rate, per key, and say in whole seconds when a token will be there', () => {
    const time = clock();
    const buckets = new KeyedBuckets({ perSecond: 0.5, burst: 2 }, 10, time.now);
    expect([buckets.take('a'), buckets.take('a')]).toEqual([{ granted: true }, { granted: true }]);
    expect(buckets.take('a')).toEqual({ granted: false, retryAfterSeconds: 2 });
    expect(buckets.take('b')).toEqual({ granted: true });
    time.advance(1_000);
    expect(buckets.take('a')).toEqual({ granted: false, retryAfterSeconds: 1 });
    time.advance(1_000);
    expect(buckets.take('a')).toEqual({ granted: true });
    time.advance(60_000);
    expect([buckets.take('a'), buckets.take('a'), buckets.take('a')].map((take) => take.granted)).toEqual([true, true, false]);
  });

  it('keep at most their key cap, forgetting the least recently used (a forgotten key is a full bucket)', () => {
    const time = clock();
    const buckets = new KeyedBuckets({ perSecond: 0.001, burst: 1 }, 2, time.now);
    for (const key of ['a', 'b', 'c']) expect(buckets.take(key).granted).toBe(true);
    expect(buckets.take('c').granted).toBe(false);
    expect(buckets.take('a').granted).toBe(true); // forgotten when c came
  });
});

describe('hint coalescing', () => {
  it('coalesces a claim while it is in flight and within the window after its answer', () => {
    const time = clock();
    const hints = new HintCoalescing(10_000, 100, time.now);
    expect(hints.begin('customer/a', 'CUSTOMER_APPROVED/1 APPROVED')).toBe(true);
    expect(hints.begin('customer/a', 'CUSTOMER_APPROVED/1 APPROVED')).toBe(false);
    expect(hints.begin('customer/a', 'VIRTUAL_ACCOUNT_APPROVED/2 VERIFIED')).toBe(true);
    expect(hints.begin('customer/b', 'CUSTOMER_APPROVED/1 APPROVED')).toBe(true);
    time.advance(60_000); // still in flight: still coalesced
    expect(hints.begin('customer/a', 'CUSTOMER_APPROVED/1 APPROVED')).toBe(false);
    hints.answered('customer/a', 'CUSTOMER_APPROVED/1 APPROVED');
    time.advance(9_999);
    expect(hints.begin('customer/a', 'CUSTOMER_APPROVED/1 APPROVED')).toBe(false);
    time.advance(1);
    expect(hints.begin('customer/a', 'CUSTOMER_APPROVED/1 APPROVED')).toBe(true);
  });

  it('sends the next copy of a claim whose send failed', () => {
    const hints = new HintCoalescing(10_000, 100, clock().now);
    expect(hints.begin('deposit/d', 'DEPOSIT_APPROVED/d CONFIRMED')).toBe(true);
    hints.failed('deposit/d', 'DEPOSIT_APPROVED/d CONFIRMED');
    expect(hints.begin('deposit/d', 'DEPOSIT_APPROVED/d CONFIRMED')).toBe(true);
  });
});

describe('the receiver budget', () => {
  /** Whatever `call` throws, or undefined. */
  const thrown = (call: () => void): unknown => {
    try {
      call();
      return undefined;
    } catch (error) {
      return error;
    }
  };

  it('keeps the start and target rates per source address, under a total for all of them, and names the budget and the wait', () => {
    const budget = new ReceiverBudget(
      { source: { perSecond: 1, burst: 1 }, target: { perSecond: 1, burst: 1 }, starts: { perSecond: 0.25, burst: 1 }, totalStarts: { perSecond: 0.5, burst: 2 }, hintWindowMs: 0, maxKeys: 10 },
      clock().now,
    );
    budget.workflowStart('forger');
    expect(thrown(() => budget.workflowStart('forger'))).toMatchObject({ name: 'OverBudget', budget: 'starts', retryAfterSeconds: 4 });
    budget.workflowStart('service'); // the forger did not spend the service's starts
    expect(thrown(() => budget.workflowStart('third'))).toMatchObject({ budget: 'total-starts', retryAfterSeconds: 2 });
    budget.toTarget('forger', 'customer/a');
    expect(thrown(() => budget.toTarget('forger', 'customer/a'))).toBeInstanceOf(OverBudget);
    budget.toTarget('service', 'customer/a');
    budget.fromSource('forger');
    expect(thrown(() => budget.fromSource('forger'))).toMatchObject({ budget: 'source' });
    budget.fromSource('service');
  });
});
