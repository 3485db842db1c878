/**
 * The receiver's budget: what one receiver process lets deliveries cost, whoever sends them. The path
 * token is the deliveries' only secret, and a leaked one must not buy unbounded work (DESIGN, "Trust";
 * docs/guarantees/trust-rule.md, "What a leaked token can do"). In memory, per process:
 *
 * - **per source address** (the TCP peer): `source` deliveries a second, bursts of `source.burst`,
 *   checked before the body is read;
 * - **per target workflow** (a journey or `deposit/<id>` a hint is signalled to), from each source:
 *   `target`;
 * - **workflow starts** (every ramp-event start, and every deposit signal-with-start to a deposit
 *   this process has not delivered to before, which starts the deposit's workflow when it does not
 *   exist): `starts` from each source, and `totalStarts` across all sources;
 * - **one hint in flight per target and claim** (webhooks/hint-coalescing.ts): copies join it.
 *
 * The target and start rates are kept per source so that a forger at one address cannot spend the
 * service's share: the service's deliveries come from its own addresses. Only `totalStarts` is
 * shared, the bound that holds against a forger at many addresses.
 *
 * Past a rate the receiver answers 429 with Retry-After; the service retries a delivery it could not
 * make (10 minutes later, then an hour, a day, a week), so a genuine delivery is late, not lost, and
 * the workflows' own polls and reconciliation find what it would have told them. Each map holds at
 * most `maxKeys` keys (least recently used dropped first).
 */
import type { WebhookEnv } from '../config/env';
import { HintCoalescing } from './hint-coalescing';
import { KeyedBuckets, type Rate, type Take } from './token-buckets';

export interface ReceiverBudgetOptions {
  source: Rate;
  target: Rate;
  starts: Rate;
  totalStarts: Rate;
  maxKeys: number;
}

/** Production defaults (WEBHOOK_* in config/env.ts; docs/deploying/webhooks.md, "The receiver's budget"). */
export const DEFAULT_RECEIVER_BUDGET: ReceiverBudgetOptions = {
  // The service delivers what is due once a minute, in bursts: a burst of 500 from its address passes.
  source: { perSecond: 50, burst: 500 },
  // A journey hears of its customer and two accounts, a deposit of itself and its trade: a few each.
  target: { perSecond: 0.1, burst: 10 },
  // As large a burst as the source's: a minute's deliveries may open a few hundred deposits at once.
  starts: { perSecond: 10, burst: 500 },
  totalStarts: { perSecond: 50, burst: 1_000 },
  maxKeys: 100_000,
};

/** A delivery over one of the rates: answered 429 with Retry-After. */
export class OverBudget extends Error {
  constructor(
    readonly budget: 'source' | 'target' | 'starts' | 'total-starts',
    readonly retryAfterSeconds: number,
  ) {
    super(`over the receiver's ${budget} budget`);
    this.name = 'OverBudget';
  }
}

export class ReceiverBudget {
  private readonly sources: KeyedBuckets;
  private readonly targets: KeyedBuckets;
  private readonly starts: KeyedBuckets;
  private readonly totalStarts: KeyedBuckets;
  readonly hints: HintCoalescing;

  constructor(options: ReceiverBudgetOptions = DEFAULT_RECEIVER_BUDGET, now?: () => number) {
    this.sources = new KeyedBuckets(options.source, options.maxKeys, now);
    this.targets = new KeyedBuckets(options.target, options.maxKeys, now);
    this.starts = new KeyedBuckets(options.starts, options.maxKeys, now);
    this.totalStarts = new KeyedBuckets(options.totalStarts, 1, now);
    this.hints = new HintCoalescing();
  }

  /** One delivery from `address`; throws OverBudget past the source rate. */
  fromSource(address: string): void {
    grant('source', this.sources.take(address));
  }

  /** One hint to `target` from `source`; throws OverBudget past the target rate. */
  toTarget(source: string, target: string): void {
    grant('target', this.targets.take(`${source} ${target}`));
  }

  /** One workflow start (or signal-with-start) for a delivery from `source`; throws OverBudget past either start rate. */
  workflowStart(source: string): void {
    grant('starts', this.starts.take(source));
    grant('total-starts', this.totalStarts.take('all'));
  }
}

function grant(budget: OverBudget['budget'], take: Take): void {
  if (!take.granted) throw new OverBudget(budget, take.retryAfterSeconds);
}

/** The budget the receiver process runs with, from its environment. */
export function receiverBudgetFromEnv(env: WebhookEnv): ReceiverBudgetOptions {
  return {
    source: { perSecond: env.WEBHOOK_SOURCE_PER_SECOND, burst: env.WEBHOOK_SOURCE_BURST },
    target: { perSecond: env.WEBHOOK_TARGET_PER_MINUTE / 60, burst: env.WEBHOOK_TARGET_BURST },
    starts: { perSecond: env.WEBHOOK_STARTS_PER_SECOND, burst: env.WEBHOOK_STARTS_BURST },
    totalStarts: { perSecond: env.WEBHOOK_TOTAL_STARTS_PER_SECOND, burst: env.WEBHOOK_TOTAL_STARTS_BURST },
    maxKeys: DEFAULT_RECEIVER_BUDGET.maxKeys,
  };
}
