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
 * - who shares the rate: the identities polling the service queue, from DescribeTaskQueue's pollers
 *   on every partition of the queue (a poll waits on one partition, and the root partition hears of
 *   it only when it is forwarded there: with 8 pollers on 4 partitions the root listed 5), taken
 *   together with the last time the server heard from each. The server remembers a poller for
 *   minutes after its last poll (matching.PollerHistoryTTL, 5 by default), so a worker gone would
 *   keep its share that long, and an autoscaler or a crash loop that replaces workers every few
 *   minutes would leave the live ones a fraction of R (the chaos run at 300 customers: 12 pollers
 *   listed while 3 ran, the service queue 12 minutes behind). So a poller the server last heard
 *   from more than GONE_AFTER_MS before the newest it heard from is taken as gone. A live worker is
 *   heard at the start and the end of every poll, and an idle poll ends within a minute; one whose
 *   slots are all taken is heard at the end of its last poll;
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
 * - a worker leaving only grows the others' shares once it is taken as gone, and each share then
 *   only grows, so shares read before and after add up to at most R;
 * - a worker that is alive but unheard (every slot taken for longer than a poll) takes itself out
 *   first: it claims its share only while the server heard from it within CLAIM_WITHIN_MS of the
 *   newest, GONE_AFTER_MS - CLAIM_WITHIN_MS before the others stop counting it. Sending nothing, its
 *   calls give up their slots (ramp/call-pacing.ts, LEASE_WAIT_LIMIT_MS), it polls, is heard, and
 *   claims again; the others never stopped counting it.
 * What it takes on trust: that a call arrives at the service within a second of leaving (a place's
 * hold); that every worker runs this code with the same RAMP_MAX_CALLS_PER_SECOND; and that the newest
 * poll the server heard of is never more than GONE_AFTER_MS - CLAIM_WITHIN_MS - LEASE_MS old while a
 * worker that went unheard still holds a lease (otherwise, for one lease at most, that worker's share
 * comes on top of R: every other worker would have gone 22 s without a poll starting or ending while
 * this one had no free slot for 100 s).
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
import { optionalTsToMs } from '@temporalio/common/lib/time';
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
 * A poller the server last heard from this long before the newest it heard from is taken as gone. A
 * live worker with a free slot is heard at least once a minute (the server ends an idle poll after
 * one: matching.longPollExpirationInterval), so it is never this far behind.
 */
export const GONE_AFTER_MS = 100_000;
/** This worker claims its share only while the server heard from it within this of the newest (above). */
export const CLAIM_WITHIN_MS = 75_000;
/** How often the service queue's partitions are listed again (their number is the server's dynamic configuration). */
export const PARTITIONS_EVERY_MS = 60_000;
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

/** A poller of the service queue: its identity, and when the server last heard from it (the server's clock, ms). */
export interface Poller {
  identity: string;
  heardAt: number | undefined;
}

export interface Membership {
  goneAfterMs: number;
  claimWithinMs: number;
}

const MEMBERSHIP: Membership = { goneAfterMs: GONE_AFTER_MS, claimWithinMs: CLAIM_WITHIN_MS };

/**
 * Who shares the rate, and whether `self` may claim its share: `members`, the identities the server
 * heard from within `goneAfterMs` of the newest it heard from (each identity at its latest, however
 * many partitions list it; one with no time counts as just heard); `heard`, whether `self` is among
 * those heard within `claimWithinMs`. Times are read against each other, all on the server's clock,
 * never against this worker's, which may be off.
 */
export function membershipOf(
  pollers: readonly Poller[],
  self: string,
  { goneAfterMs, claimWithinMs }: Membership = MEMBERSHIP,
): { members: string[]; heard: boolean } {
  const latest = new Map<string, number>();
  for (const { identity, heardAt } of pollers) {
    const at = heardAt ?? Infinity;
    latest.set(identity, Math.max(at, latest.get(identity) ?? -Infinity));
  }
  const heardTimes = [...latest.values()].filter(Number.isFinite);
  const newest = heardTimes.length > 0 ? Math.max(...heardTimes) : 0;
  const members = [...latest].filter(([, at]) => at >= newest - goneAfterMs).map(([identity]) => identity);
  const selfAt = latest.get(self);
  return { members, heard: selfAt !== undefined && selfAt >= newest - claimWithinMs };
}

/** What the server says of the service queue. */
export interface QueueView {
  pollers: Poller[];
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
  /** GONE_AFTER_MS and CLAIM_WITHIN_MS, shorter in tests. */
  membership?: Membership;
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
  /** The service queue's partitions other than its root, and when they were listed. */
  #partitions: { names: string[]; listedAt: number } | undefined;
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
    const { identity } = this.#options;
    const { members, heard } = membershipOf(view.pollers, identity, this.#options.membership);
    if (!members.includes(identity)) this.#joinedAt = undefined;
    else this.#joinedAt ??= askedAt;
    const joined = this.#joinedAt !== undefined && askedAt - this.#joinedAt >= JOIN_DELAY_MS;
    // Unheard for long, it sends nothing before the others stop counting it (above); they never grew, so it needs no new join.
    const places = joined && heard ? shareOf(this.#rate, members, identity) : 0;
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

  /**
   * The service queue as every partition sees it: the root's configuration, and the pollers of all
   * (the root lists only the polls forwarded to it). Any partition unanswered fails the whole view:
   * a view with fewer pollers would give this worker a larger share than the others give it.
   */
  async #describe(): Promise<QueueView> {
    const { workflowService, namespace, serviceTaskQueue } = this.#options;
    const describe = (name: string, reportConfig: boolean) =>
      workflowService.describeTaskQueue({
        namespace,
        taskQueue: { name },
        taskQueueType: ACTIVITY_QUEUE,
        reportConfig,
      });
    const [root, ...others] = await Promise.all([
      describe(serviceTaskQueue, true),
      ...(await this.#otherPartitions()).map((name) => describe(name, false)),
    ]);
    const limit = root.config?.queueRateLimit;
    return {
      pollers: [root, ...others]
        .flatMap((answer) => answer.pollers ?? [])
        .map((poller) => ({ identity: poller.identity ?? '', heardAt: optionalTsToMs(poller.lastAccessTime) }))
        .filter((poller) => poller.identity !== ''),
      configured: limit?.rateLimit
        ? { requestsPerSecond: limit.rateLimit.requestsPerSecond ?? 0, ours: limit.metadata?.reason === RATE_REASON }
        : undefined,
    };
  }

  /** The service queue's partitions other than its root (their RPC names), listed every PARTITIONS_EVERY_MS. */
  async #otherPartitions(): Promise<string[]> {
    const now = this.#now();
    if (this.#partitions && now - this.#partitions.listedAt < PARTITIONS_EVERY_MS) return this.#partitions.names;
    const { workflowService, namespace, serviceTaskQueue } = this.#options;
    const answer = await workflowService.listTaskQueuePartitions({ namespace, taskQueue: { name: serviceTaskQueue } });
    const names = (answer.activityTaskQueuePartitions ?? [])
      .map((partition) => partition.key ?? '')
      .filter((name) => name !== '' && name !== serviceTaskQueue);
    this.#partitions = { names, listedAt: now };
    return names;
  }
}
