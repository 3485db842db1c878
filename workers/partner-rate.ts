/**
 * One calls-per-second rate for the whole partner, whatever the number of workers, brought down when
 * the service refuses calls (docs/deploying/rate-limits.md).
 *
 * Why not a fixed share of RAMP_MAX_CALLS_PER_SECOND per process: an autoscaler that adds workers
 * multiplies it. And why not the service queue's dispatch rate alone (workers/worker.ts): the Temporal
 * server enforces it across every worker, but it counts activity dispatches, not calls: one activity
 * makes one to three calls (a look-up, a create, a read-back), a list walk one per page, a GET retries
 * within its attempt, and a dispatch is not when its calls arrive.
 *
 * So each worker learns from the Temporal server, every REFRESH_MS, two things every worker reads alike:
 * - who shares the rate: the identities polling the service queue (DescribeTaskQueue's pollers; the
 *   server keeps one for minutes after its last poll, so a worker gone is still counted for a while:
 *   the share errs low, never high);
 * - the partner-wide rate R: RAMP_MAX_CALLS_PER_SECOND, or lower when rampflow has brought it down,
 *   held on the server as the service queue's rate limit (Temporal's task queue configuration, with
 *   RATE_REASON as its reason, at R activities a second: each makes at least one call, so the server
 *   never hands out more than the leases can serve; at R / 2, as the workers' own rate is at N, the
 *   many activities that make a single GET were starved: 35 % of the service's allowance used in
 *   `npm run bench -- rate`).
 * and gives its client a lease (ramp/call-pacing.ts) of its share of R: R split over the identities in
 * their sorted order, the first R mod W getting one more, so the shares add up to R exactly.
 *
 * The bound, at most R <= N calls arriving at the service in any second, holds through changes:
 * - a lease lasts LEASE_MS from the describe it came from; a worker that cannot renew it sends nothing;
 * - a worker joining sends nothing until it has seen itself among the pollers for JOIN_DELAY_MS: by
 *   then every other worker either renewed its lease since (and so counts it, and has shrunk its
 *   share) or has none left; and the calls sent under their larger shares arrived more than a second
 *   before (a place is held until a second after its answer, so a smaller share waits those out);
 * - a worker leaving only grows the others' shares once the server forgets it, and each share then
 *   only grows, so shares read before and after add up to at most R.
 * What it takes on trust: that a call arrives at the service within a second of leaving (a place's
 * hold), and that every worker runs this code with the same RAMP_MAX_CALLS_PER_SECOND.
 *
 * Adapting (additive increase, multiplicative decrease): a worker whose call, sent at the current R,
 * was refused with 429 writes R' = min(R - 1, floor(R * DECREASE_FACTOR)) (at least 1); refusals of
 * calls sent before the worker applied R say nothing about R and are ignored, so one burst of 429s
 * lowers R once; a refusal makes its worker refresh at once, so the others hear of the lower R within
 * REFRESH_MS. After INCREASE_AFTER_MS at R with no such refusal, a worker writes R + 1 (or R + R/10,
 * so a large N comes back in a few minutes); at N the
 * configuration is removed (the workers' own dispatch rate again). Workers reading the same R write
 * the same value, so several acting at once act once. An operator's own rate on the service queue
 * (any other reason) is left alone: the adaptation pauses, and R is N.
 */
import { temporal as proto } from '@temporalio/proto';
import { type CallPacer, pacerNow } from '../ramp/call-pacing';

type WorkflowService = proto.api.workflowservice.v1.WorkflowService;

/** How often a worker asks the server who shares the rate, and what it is (and at once after a refusal). */
export const REFRESH_MS = 500;
/** How long a share holds after the describe it came from. */
export const LEASE_MS = 3_000;
/** How long a joining worker waits after seeing itself among the pollers: a lease, and a place's hold with a margin. */
export const JOIN_DELAY_MS = LEASE_MS + 2_000;
/**
 * How long R stays unrefused before it goes up. Each rise past what the service allows costs a
 * refusal or two (the service counts refused calls too, so one refusal leads to another until R is
 * down again): at 30 s that is a few in a hundred calls at three a second.
 */
export const INCREASE_AFTER_MS = 30_000;
/** What a refusal at R leaves of it. */
export const DECREASE_FACTOR = 0.75;
/** The reason rampflow writes on the service queue's rate limit: how it tells its own from an operator's. */
export const RATE_REASON = 'rampflow: partner rate adapted to the service';

const ACTIVITY_QUEUE = proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY;

/** This worker's places out of `rate`, shared by `members` (identities; duplicates count once). */
export function shareOf(rate: number, members: readonly string[], self: string): number {
  const sorted = [...new Set(members)].sort();
  const index = sorted.indexOf(self);
  if (index < 0) return 0;
  return Math.floor(rate / sorted.length) + (index < rate % sorted.length ? 1 : 0);
}

/** The rate after INCREASE_AFTER_MS unrefused at `rate`: one more, or a tenth more when that is more. */
export function increasedRate(rate: number): number {
  return rate + Math.max(1, Math.floor(rate / 10));
}

/** The rate after a refusal at `rate`. */
export function decreasedRate(rate: number): number {
  return Math.max(1, Math.min(rate - 1, Math.floor(rate * DECREASE_FACTOR)));
}

/** What the server says of the service queue. */
export interface QueueView {
  members: string[];
  /** The queue's configured dispatch rate and whose it is; undefined when none is set. */
  configured: { requestsPerSecond: number; ours: boolean } | undefined;
}

export interface PartnerRateOptions {
  workflowService: WorkflowService;
  namespace: string;
  serviceTaskQueue: string;
  /** This worker's identity, as its pollers give it. */
  identity: string;
  /** The client's pacer, which gets the leases and notes the refusals. */
  pacer: CallPacer;
  /** RAMP_MAX_CALLS_PER_SECOND. */
  maxCallsPerSecond: number;
  /** Told of the partner-wide rate and this worker's share after each refresh (a gauge). */
  onShare?: (rate: number, share: number) => void;
  /** Told when the server cannot be asked (the lease then runs out): once per run of failures. */
  onProblem?: (message: string) => void;
  now?: () => number;
}

export class PartnerRate {
  readonly #options: PartnerRateOptions;
  readonly #now: () => number;
  readonly #max: number;
  /** The rate last applied, and when. */
  #rate: number;
  #rateAppliedAt: number;
  /** When this worker first saw itself among the pollers. */
  #joinedAt: number | undefined;
  #failing = false;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #unwatch: () => void = () => undefined;

  constructor(options: PartnerRateOptions) {
    this.#options = options;
    // The pacer's clock: the leases and the refusals' times are read against it.
    this.#now = options.now ?? pacerNow;
    this.#max = Math.max(1, Math.floor(options.maxCallsPerSecond));
    this.#rate = this.#max;
    this.#rateAppliedAt = this.#now();
    // Silent until the first lease: the worker has not yet seen who else shares the rate.
    options.pacer.lease({ places: 0, validUntil: 0 });
  }

  /** The partner-wide rate as this worker last applied it. */
  get rate(): number {
    return this.#rate;
  }

  /** Refreshes every REFRESH_MS, and at once after a refusal, until stopped. */
  start(): void {
    let refreshing = false;
    let again = false;
    const loop = async () => {
      if (this.#stopped) return;
      if (this.#timer) clearTimeout(this.#timer);
      if (refreshing) {
        again = true;
        return;
      }
      refreshing = true;
      do {
        again = false;
        await this.refresh();
      } while (again && !this.#stopped);
      refreshing = false;
      if (!this.#stopped) this.#timer = setTimeout(() => void loop(), REFRESH_MS);
    };
    this.#unwatch = this.#options.pacer.onRefused(() => void loop());
    void loop();
  }

  stop(): void {
    this.#stopped = true;
    this.#unwatch();
    if (this.#timer) clearTimeout(this.#timer);
  }

  /** One round: read the queue, adapt R if this worker's answers say so, and renew the lease. */
  async refresh(): Promise<void> {
    const askedAt = this.#now();
    let view: QueueView;
    try {
      view = await this.#describe();
      this.#failing = false;
    } catch (error) {
      if (!this.#failing)
        this.#options.onProblem?.(
          `could not read the service queue from Temporal, so this worker sends no calls once its share runs out: ${error instanceof Error ? error.message : String(error)}`,
        );
      this.#failing = true;
      return;
    }
    this.#apply(this.#rateOf(view), askedAt);
    const adjustable = view.configured === undefined || view.configured.ours;
    if (adjustable) await this.#adapt(askedAt);
    if (!view.members.includes(this.#options.identity)) this.#joinedAt = undefined;
    else this.#joinedAt ??= askedAt;
    const joined = this.#joinedAt !== undefined && askedAt - this.#joinedAt >= JOIN_DELAY_MS;
    const places = joined ? shareOf(this.#rate, view.members, this.#options.identity) : 0;
    this.#options.pacer.lease({ places, validUntil: askedAt + LEASE_MS });
    this.#options.onShare?.(this.#rate, places);
  }

  #rateOf(view: QueueView): number {
    if (view.configured === undefined || !view.configured.ours) return this.#max;
    return Math.min(this.#max, Math.max(1, Math.round(view.configured.requestsPerSecond)));
  }

  #apply(rate: number, at: number): void {
    if (rate === this.#rate) return;
    this.#rate = rate;
    this.#rateAppliedAt = at;
  }

  async #adapt(now: number): Promise<void> {
    const refusedAt = this.#options.pacer.lastRefusedStartedAt;
    const refusedAtThisRate = refusedAt !== undefined && refusedAt >= this.#rateAppliedAt;
    if (refusedAtThisRate) {
      const lower = decreasedRate(this.#rate);
      if (lower < this.#rate) await this.#write(lower, now);
    } else if (this.#rate < this.#max && now - this.#rateAppliedAt >= INCREASE_AFTER_MS) {
      await this.#write(Math.min(this.#max, increasedRate(this.#rate)), now);
    }
  }

  /** Writes R on the server (removing the configuration at N) and applies it here at once. */
  async #write(rate: number, now: number): Promise<void> {
    try {
      await this.#options.workflowService.updateTaskQueueConfig({
        namespace: this.#options.namespace,
        identity: this.#options.identity,
        taskQueue: this.#options.serviceTaskQueue,
        taskQueueType: ACTIVITY_QUEUE,
        updateQueueRateLimit: {
          reason: RATE_REASON,
          ...(rate >= this.#max ? {} : { rateLimit: { requestsPerSecond: rate } }),
        },
      });
      this.#apply(rate, now);
    } catch (error) {
      this.#options.onProblem?.(
        `could not set the partner's rate on the service queue: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  async #describe(): Promise<QueueView> {
    const answer = await this.#options.workflowService.describeTaskQueue({
      namespace: this.#options.namespace,
      taskQueue: { name: this.#options.serviceTaskQueue },
      taskQueueType: ACTIVITY_QUEUE,
      reportConfig: true,
    });
    const limit = answer.config?.queueRateLimit;
    return {
      members: (answer.pollers ?? []).map((poller) => poller.identity ?? '').filter((identity) => identity !== ''),
      configured: limit?.rateLimit
        ? { requestsPerSecond: limit.rateLimit.requestsPerSecond ?? 0, ours: limit.metadata?.reason === RATE_REASON }
        : undefined,
    };
  }
}
