/**
 * Token buckets for the receiver's budget (webhooks/receiver-budget.ts): a rate a caller may keep up
 * and a burst it may spend at once, in memory, one bucket per key in a bounded LRU. A key that has not
 * been seen for a while is simply a full bucket again, so evicting the least recently used one at the
 * cap only ever errs towards letting a delivery through.
 */
import { LRUCache } from 'lru-cache';

export interface Rate {
  /** Tokens added a second (the rate kept up). */
  perSecond: number;
  /** The bucket's size (what may be spent at once). */
  burst: number;
}

/** Whether a take was granted, and if not, in how many whole seconds a token will be there. */
export type Take = { granted: true } | { granted: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  at: number;
}

export class KeyedBuckets {
  private readonly buckets: LRUCache<string, Bucket>;

  constructor(
    private readonly rate: Rate,
    maxKeys: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.buckets = new LRUCache({ max: maxKeys });
  }

  /** Takes one token from `key`'s bucket if it has one. */
  take(key: string): Take {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.rate.burst, at: now };
    bucket.tokens = Math.min(this.rate.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.rate.perSecond);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { granted: true };
    }
    return { granted: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.rate.perSecond)) };
  }
}
