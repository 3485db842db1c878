/**
 * The receiver budget's arithmetic on a clock the test moves: token buckets refill at their rate up
 * to their burst and say when to come again, and a copy of a claim joins the claim's signal in flight,
 * never one that was already held or failed.
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
    expect([buckets.take('a'), buckets.take('a'), buckets.take('a')].map((take) => take.granted)).toEqual([
      true,
      true,
      false,
    ]);
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
  it('joins a copy of a claim to the signal in flight, and takes its outcome', async () => {
    const hints = new HintCoalescing();
    expect(hints.join('customer/a', 'CUSTOMER_APPROVED/1 APPROVED')).toBeUndefined();
    const copy = hints.join('customer/a', 'CUSTOMER_APPROVED/1 APPROVED');
    expect(copy).toBeInstanceOf(Promise);
    // Other claims, and the same claim to another target, are not joined.
    expect(hints.join('customer/a', 'VIRTUAL_ACCOUNT_APPROVED/2 VERIFIED')).toBeUndefined();
    expect(hints.join('customer/b', 'CUSTOMER_APPROVED/1 APPROVED')).toBeUndefined();
    hints.settled('customer/a', 'CUSTOMER_APPROVED/1 APPROVED', true);
    expect(await copy).toBe(true);
  });

  it('sends a copy that comes once the signal was held: the target may already have read', () => {
    const hints = new HintCoalescing();
    expect(hints.join('customer/a', 'VIRTUAL_ACCOUNT_APPROVED/2 VERIFIED')).toBeUndefined();
    hints.settled('customer/a', 'VIRTUAL_ACCOUNT_APPROVED/2 VERIFIED', true);
    expect(hints.join('customer/a', 'VIRTUAL_ACCOUNT_APPROVED/2 VERIFIED')).toBeUndefined();
  });

  it('tells a copy waiting on a signal that did not go out, which then sends its own', async () => {
    const hints = new HintCoalescing();
    expect(hints.join('deposit/d', 'DEPOSIT_APPROVED/d CONFIRMED')).toBeUndefined();
    const copy = hints.join('deposit/d', 'DEPOSIT_APPROVED/d CONFIRMED');
    hints.settled('deposit/d', 'DEPOSIT_APPROVED/d CONFIRMED', false);
    expect(await copy).toBe(false);
    expect(hints.join('deposit/d', 'DEPOSIT_APPROVED/d CONFIRMED')).toBeUndefined();
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
      {
        source: { perSecond: 1, burst: 1 },
        target: { perSecond: 1, burst: 1 },
        starts: { perSecond: 0.25, burst: 1 },
        totalStarts: { perSecond: 0.5, burst: 2 },
        maxKeys: 10,
      },
      clock().now,
    );
    budget.workflowStart('forger');
    expect(thrown(() => budget.workflowStart('forger'))).toMatchObject({
      name: 'OverBudget',
      budget: 'starts',
      retryAfterSeconds: 4,
    });
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
