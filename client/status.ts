/**
 * `rampflow status` in one read: what an operator wants on one screen, from Temporal visibility, a
 * bounded sample of parked workflows' own states, and (when given) the workers' Prometheus endpoints.
 * The snapshot is bounded and JSON-able whatever the deployment's size.
 *
 * Every count is as visibility indexed it: a moment behind the workflows (eventually consistent).
 * Every visibility query is scoped to one task queue (the deployment's TEMPORAL_TASK_QUEUE), since
 * deployments may share a namespace.
 *
 * The server's visibility rate limit (`frontend.namespaceRPS.visibility`: 10 a second per namespace by
 * default, 50 with bursts of 100 on the cluster profile; docs/deploying/visibility.md) is shared with
 * the Web UI, the bulk commands, the stage-age scan and reconciliation, so a read makes few calls, and
 * the same few each time:
 *
 * - one list page (up to 1000) of the running workflows of each kind (journeys, deposits, payouts): 3.
 *   When a kind has at most 1000 running, its page is all of them: its counts per stage and its
 *   longest waiter per stage (the earliest RampStageSince) come from it. Only a kind with more makes one count per stage, one of its
 *   total and one list of its newest parked instead (journeys 8, deposits 9, payouts 5 more calls).
 *   (`CountWorkflowExecutions ... GROUP BY RampStage` would be one call, but SQL visibility, the dev
 *   server's SQLite and the cluster's PostgreSQL on server 1.29.1, groups by ExecutionStatus only.)
 * - the last two reconciliation runs: 1 list.
 * - ramp events (webhooks) parked for good and still waiting for their target: 2 counts.
 * - parked partner event deliveries: 1 count and 1 list of the first few streams.
 *
 * So 8 visibility calls a read, at most 30; besides them, at most `parkedSample` state queries (they
 * need a worker) and one history read for the last reconciliation's result.
 */
import type { Client } from '@temporalio/client';
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers';
import type { QueryDefinition } from '@temporalio/common';
import { depositStateQuery, journeyStateQuery, type Attention } from '../workflows/common/messages';
import type { PartnerEventStream } from '../partner-events/catalogue';
import { partnerEventDeliveryWorkflowId } from '../workflows/partner-events/messages';
import { payoutStateQuery } from '../workflows/payout/messages';
import { EVENT_STAGE } from '../workflows/ramp-event/events';
import type { ReconcileResult } from '../workflows/reconcile/types';
import { RampStage, RampStageSince } from '../observability/search-attributes';
import { RampflowInputError } from './errors';
import { readWorkerMetrics, type WorkerMetrics } from './worker-metrics';

/** The kinds of workflow the status counts, each with the stages a running one can be at. */
export const STATUS_KINDS = [
  {
    kind: 'journeys',
    workflowType: 'customerJourney',
    stages: ['CREATING_CUSTOMER', 'AWAITING_KYC', 'SETTING_UP_RAMPS', 'AWAITING_ACCOUNTS', 'ACTIVE', 'NEEDS_ATTENTION'],
    stateQuery: journeyStateQuery,
  },
  {
    kind: 'deposits',
    workflowType: 'depositLifecycle',
    stages: [
      'RECEIVED',
      'ACTION_REQUIRED',
      'CONFIRMED',
      'TRADE_CREATED',
      'TRADE_SETTLED',
      'PAYMENT_SETTLED',
      'NEEDS_ATTENTION',
    ],
    stateQuery: depositStateQuery,
  },
  {
    kind: 'payouts',
    workflowType: 'payout',
    stages: ['CREATING_PAYMENT', 'AWAITING_SETTLEMENT', 'NEEDS_ATTENTION'],
    stateQuery: payoutStateQuery,
  },
] as const satisfies readonly {
  kind: string;
  workflowType: string;
  stages: readonly string[];
  stateQuery: QueryDefinition<{ attention?: Attention }>;
}[];

export type StatusKind = (typeof STATUS_KINDS)[number]['kind'];

/** One page of a kind's running workflows: all of them when it has at most this many. */
export const STATUS_PAGE_SIZE = 1000;
export const DEFAULT_PARKED_SAMPLE = 20;
/** Streams with parked partner event deliveries named in the snapshot. */
export const PARKED_STREAMS_SHOWN = 5;

export interface StatusOptions {
  /** The deployment's task queue: every query is scoped to it. */
  taskQueue: string;
  /** At most this many parked workflows' states are read for their reasons (default 20, at most 100). */
  parkedSample?: number;
  /** Workers' Prometheus endpoints (`http://worker:9464/metrics`). */
  metricsUrls?: readonly string[];
  /** Each state query's deadline (default 3 s). */
  queryTimeoutMs?: number;
  /** The whole read's deadline for Temporal calls (default 15 s): past it, with Temporal away or slow, the read fails rather than waits. */
  deadlineMs?: number;
  now?: () => Date;
}

export interface StageStatus {
  stage: string;
  count: number;
  /**
   * The running workflow that has been at this stage longest: the earliest RampStageSince (when it
   * entered the stage, carried through continue-as-new). Absent when the stage is empty, when none of
   * its workflows indexed the time yet (runs from before the attribute, until they move), or when the
   * kind has more running than one page and this stage's oldest was not on it (`oldestUnknown`).
   */
  oldestInStage?: { workflowId: string; since: string };
  oldestUnknown?: true;
}

export interface KindStatus {
  kind: StatusKind;
  workflowType: string;
  /** Running workflows of this kind on the task queue, as indexed. */
  running: number;
  /** Counted from the one page of running workflows (`listed`), or by one count per stage (over 1000 running). */
  countedBy: 'listed' | 'counted';
  stages: StageStatus[];
  /** Running but indexed at no stage above (started before the attribute, or not yet indexed). */
  otherStage: number;
}

export interface ParkedReason {
  kind: StatusKind;
  /** The attention's error type (Deadline, InvalidParameters, Refused, ...), or `unspecified`. */
  reason: string;
  /** The stage that was parked. */
  stage: string;
  count: number;
  /** When the longest parked of them parked (the attention's `since`). */
  oldestSince: string;
  /** One of their reasons in words, whole. */
  example: string;
  /** The IDs of the parked workflows read in this group (at most the sample's size), longest parked first. */
  workflowIds: string[];
}

export interface ParkedStatus {
  /** Workflows in NEEDS_ATTENTION (journeys, deposits, payouts), as indexed. */
  total: number;
  /** States asked for their reasons (at most `parkedSample`, the newest parked of each kind first). */
  asked: number;
  /** States that answered; the reasons are theirs. */
  read: number;
  /** True when the reasons come from fewer than all parked workflows. */
  sample: boolean;
  reasons: ParkedReason[];
  /** Why some states could not be read (no worker, a query timing out), once per distinct message. */
  unreadBecause: string[];
}

export interface ReconciliationRun {
  workflowId: string;
  status: string;
  startTime: string;
  closeTime?: string;
  /** What a completed run returned. */
  result?: Pick<ReconcileResult, 'examined' | 'repaired' | 'missed' | 'truncated'>;
}

export interface StatusSnapshot {
  readAt: string;
  namespace: string;
  taskQueue: string;
  /** Visibility calls this read made (see the module's comment). */
  visibilityCalls: number;
  kinds: KindStatus[];
  parked: ParkedStatus;
  /** The latest reconciliation run (running or ended), and the latest ended one when it is still running; null when there is none. */
  reconciliation: { latest: ReconciliationRun; lastEnded?: ReconciliationRun } | null;
  /** Ramp events (the service's webhooks): parked for good (EVENT_UNROUTED, until retention removes them) and looking for their target (EVENT_WAITING). */
  webhooks: { parked: number; waiting: number };
  /** Partner event streams whose delivery parked an endpoint (running partnerEventDelivery at NEEDS_ATTENTION). */
  partnerEvents: { parkedStreams: number; streams: string[] };
  /** One entry per `metricsUrls`; null when none was given. */
  metrics: WorkerMetrics[] | null;
  /** Sections that could not be read, each with why; the rest of the snapshot stands. */
  errors: { section: string; message: string }[];
}

const TASK_QUEUE = /^[^'"\\]{1,1000}$/;

/** Counts visibility calls, and runs them few at a time (the namespace's limit is shared). */
class Visibility {
  calls = 0;
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(
    private readonly client: Client,
    private readonly concurrency = 3,
  ) {}

  async count(query: string): Promise<number> {
    return this.limited(async () => (await this.client.workflow.count(query)).count);
  }

  /** One page, never more; `complete` when it is the whole list. */
  async page(query: string, pageSize: number) {
    return this.limited(async () => {
      const { namespace, loadedDataConverter } = this.client.options;
      const response = await this.client.workflowService.listWorkflowExecutions({ namespace, query, pageSize });
      const executions = await Promise.all(
        response.executions.map((raw) => executionInfoFromRaw(raw, loadedDataConverter, raw, namespace)),
      );
      return { executions, complete: !response.nextPageToken || response.nextPageToken.length === 0 };
    });
  }

  private async limited<T>(call: () => Promise<T>): Promise<T> {
    if (this.active >= this.concurrency) await new Promise<void>((wake) => this.waiting.push(wake));
    this.active += 1;
    this.calls += 1;
    try {
      return await call();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));
const shorten = (text: string, max = 100): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export async function readStatus(client: Client, options: StatusOptions): Promise<StatusSnapshot> {
  // The SDK retries an unavailable server for long; a status screen should say so sooner.
  return client.connection.withDeadline(Date.now() + (options.deadlineMs ?? 15_000), () => read(client, options));
}

async function read(client: Client, options: StatusOptions): Promise<StatusSnapshot> {
  if (!TASK_QUEUE.test(options.taskQueue)) throw new RampflowInputError(['taskQueue: no quotes or backslashes']);
  const parkedSample = options.parkedSample ?? DEFAULT_PARKED_SAMPLE;
  if (!Number.isInteger(parkedSample) || parkedSample < 0 || parkedSample > 100)
    throw new RampflowInputError(['parkedSample: a whole number from 0 to 100']);
  const now = options.now ?? (() => new Date());
  const visibility = new Visibility(client);
  const onQueue = `TaskQueue = '${options.taskQueue}'`;
  const errors: StatusSnapshot['errors'] = [];
  const section = async <T>(name: string, read: () => Promise<T>, fallback: T): Promise<T> => {
    try {
      return await read();
    } catch (error) {
      errors.push({ section: name, message: message(error) });
      return fallback;
    }
  };

  const metrics =
    options.metricsUrls && options.metricsUrls.length > 0
      ? Promise.all(options.metricsUrls.map((url) => readWorkerMetrics(url)))
      : Promise.resolve(null);
  const [kindReads, reconciliation, webhooks, partnerEvents] = await Promise.all([
    Promise.all(STATUS_KINDS.map((kind) => section(kind.kind, () => readKind(visibility, kind, onQueue), undefined))),
    section('reconciliation', () => readReconciliation(client, visibility, onQueue), null),
    section('webhooks', () => readWebhooks(visibility, onQueue), { parked: 0, waiting: 0 }),
    section('partnerEvents', () => readPartnerEvents(visibility, onQueue), { parkedStreams: 0, streams: [] }),
  ]);
  // Nothing read at all (Temporal away): one error, not a screen of them.
  if (errors.length === STATUS_KINDS.length + 3) throw new Error(`status not read: ${errors[0]!.message}`);
  const kinds = kindReads.filter((read) => read !== undefined);
  const parked = await readParked(client, kinds, parkedSample, options.queryTimeoutMs ?? 3_000);
  return {
    readAt: now().toISOString(),
    namespace: client.options.namespace,
    taskQueue: options.taskQueue,
    visibilityCalls: visibility.calls,
    kinds: kinds.map((read) => read.status),
    parked,
    reconciliation,
    webhooks,
    partnerEvents,
    metrics: await metrics,
    errors,
  };
}

type KindDefinition = (typeof STATUS_KINDS)[number];
interface KindRead {
  definition: KindDefinition;
  status: KindStatus;
  /** Parked workflows' IDs, newest first, from the page (or a list of them when the page did not hold them). */
  parkedIds: string[];
}

async function readKind(visibility: Visibility, definition: KindDefinition, onQueue: string): Promise<KindRead> {
  const running = `WorkflowType = '${definition.workflowType}' AND ExecutionStatus = 'Running' AND ${onQueue}`;
  const page = await visibility.page(running, STATUS_PAGE_SIZE);
  const seen = new Map<string, { count: number; oldest?: { workflowId: string; since: Date } }>();
  const parkedIds: string[] = [];
  for (const info of page.executions) {
    const stage = info.typedSearchAttributes.get(RampStage) ?? '';
    const since = info.typedSearchAttributes.get(RampStageSince);
    const entry = seen.get(stage) ?? { count: 0 };
    entry.count += 1;
    if (since && (!entry.oldest || since < entry.oldest.since)) entry.oldest = { workflowId: info.workflowId, since };
    seen.set(stage, entry);
    if (stage === 'NEEDS_ATTENTION') parkedIds.push(info.workflowId);
  }
  let counts = definition.stages.map((stage) => seen.get(stage)?.count ?? 0);
  let total = page.executions.length;
  if (!page.complete) {
    const parkedOnly = `${running} AND ${RampStage.name} = 'NEEDS_ATTENTION'`;
    const [byStage, all, parked] = await Promise.all([
      Promise.all(definition.stages.map((stage) => visibility.count(`${running} AND ${RampStage.name} = '${stage}'`))),
      visibility.count(running),
      // The newest parked, for the sample of reasons, when the newest running were not parked.
      visibility.page(parkedOnly, DEFAULT_PARKED_SAMPLE),
    ]);
    counts = byStage;
    total = all;
    for (const info of parked.executions) if (!parkedIds.includes(info.workflowId)) parkedIds.push(info.workflowId);
  }
  const stages = definition.stages.map((stage, index): StageStatus => {
    const count = counts[index]!;
    const found = seen.get(stage);
    // The oldest is known when every workflow at the stage was on the page.
    if (count === 0) return { stage, count };
    if (!found || found.count < count) return { stage, count, oldestUnknown: true };
    if (!found.oldest) return { stage, count };
    return {
      stage,
      count,
      oldestInStage: { workflowId: found.oldest.workflowId, since: found.oldest.since.toISOString() },
    };
  });
  const staged = counts.reduce((sum, count) => sum + count, 0);
  return {
    definition,
    status: {
      kind: definition.kind,
      workflowType: definition.workflowType,
      running: total,
      countedBy: page.complete ? 'listed' : 'counted',
      stages,
      otherStage: Math.max(0, total - staged),
    },
    parkedIds,
  };
}

/** The parked workflows' reasons, from at most `limit` of their states (shared round-robin between the kinds). */
async function readParked(client: Client, kinds: KindRead[], limit: number, timeoutMs: number): Promise<ParkedStatus> {
  const total = kinds.reduce(
    (sum, read) => sum + (read.status.stages.find((stage) => stage.stage === 'NEEDS_ATTENTION')?.count ?? 0),
    0,
  );
  const chosen: { read: KindRead; workflowId: string }[] = [];
  for (let index = 0; chosen.length < limit && kinds.some((read) => read.parkedIds.length > index); index += 1) {
    for (const read of kinds)
      if (chosen.length < limit && read.parkedIds[index] !== undefined)
        chosen.push({ read, workflowId: read.parkedIds[index]! });
  }
  const unread = new Set<string>();
  const answers = await Promise.all(
    chosen.map(async ({ read, workflowId }) => {
      try {
        // Every kind's state has the same `attention`.
        const query = read.definition.stateQuery as QueryDefinition<{ attention?: Attention }>;
        const state = await client.connection.withDeadline(Date.now() + timeoutMs, () =>
          client.workflow.getHandle(workflowId).query(query),
        );
        return { kind: read.definition.kind, workflowId, attention: state.attention };
      } catch (error) {
        unread.add(shorten(message(error), 200));
        return undefined;
      }
    }),
  );
  const groups = new Map<string, ParkedReason>();
  const parkedSince = new Map<string, string>();
  let answered = 0;
  for (const answer of answers) {
    if (!answer) continue;
    answered += 1;
    // A state that moved on since it was indexed has no attention: it is no longer parked.
    if (!answer.attention) continue;
    const { errorType, stage, since, reason } = answer.attention;
    const key = `${answer.kind}\0${errorType ?? 'unspecified'}\0${stage}`;
    const group = groups.get(key);
    if (!group)
      groups.set(key, {
        kind: answer.kind,
        reason: errorType ?? 'unspecified',
        stage,
        count: 1,
        oldestSince: since,
        example: reason,
        workflowIds: [answer.workflowId],
      });
    else {
      group.count += 1;
      group.workflowIds.push(answer.workflowId);
      if (since < group.oldestSince) group.oldestSince = since;
    }
    parkedSince.set(answer.workflowId, since);
  }
  // An operator acts on the longest parked first.
  for (const group of groups.values())
    group.workflowIds.sort((a, b) => parkedSince.get(a)!.localeCompare(parkedSince.get(b)!));
  const reasons = [...groups.values()].sort(
    (a, b) => b.count - a.count || a.kind.localeCompare(b.kind) || a.reason.localeCompare(b.reason),
  );
  return { total, asked: chosen.length, read: answered, sample: answered < total, reasons, unreadBecause: [...unread] };
}

async function readReconciliation(
  client: Client,
  visibility: Visibility,
  onQueue: string,
): Promise<StatusSnapshot['reconciliation']> {
  // Visibility's order: running runs first, then the most recently closed.
  const { executions } = await visibility.page(`WorkflowType = 'reconcileWithService' AND ${onQueue}`, 2);
  const [latest, next] = executions;
  if (!latest) return null;
  const run = async (info: typeof latest): Promise<ReconciliationRun> => {
    const base = {
      workflowId: info.workflowId,
      status: info.status.name,
      startTime: info.startTime.toISOString(),
      ...(info.closeTime ? { closeTime: info.closeTime.toISOString() } : {}),
    };
    if (info.status.name !== 'COMPLETED') return base;
    const result = await client.workflow
      .getHandle<() => Promise<ReconcileResult>>(info.workflowId, info.runId)
      .result()
      .catch(() => undefined);
    return result
      ? {
          ...base,
          result: {
            examined: result.examined,
            repaired: result.repaired,
            missed: result.missed,
            truncated: result.truncated,
          },
        }
      : base;
  };
  const latestRun = await run(latest);
  if (latest.status.name !== 'RUNNING' || !next) return { latest: latestRun };
  return { latest: latestRun, lastEnded: await run(next) };
}

async function readWebhooks(visibility: Visibility, onQueue: string): Promise<StatusSnapshot['webhooks']> {
  const events = `WorkflowType = 'rampEvent' AND ${onQueue}`;
  const [parked, waiting] = await Promise.all([
    visibility.count(`${events} AND ${RampStage.name} = '${EVENT_STAGE.UNROUTED}'`),
    visibility.count(`${events} AND ${RampStage.name} = '${EVENT_STAGE.WAITING}' AND ExecutionStatus = 'Running'`),
  ]);
  return { parked, waiting };
}

const DELIVERY_PREFIX = partnerEventDeliveryWorkflowId('' as PartnerEventStream);

async function readPartnerEvents(visibility: Visibility, onQueue: string): Promise<StatusSnapshot['partnerEvents']> {
  const parked = `WorkflowType = 'partnerEventDelivery' AND ExecutionStatus = 'Running' AND ${RampStage.name} = 'NEEDS_ATTENTION' AND ${onQueue}`;
  const [count, page] = await Promise.all([visibility.count(parked), visibility.page(parked, PARKED_STREAMS_SHOWN)]);
  const streams = page.executions.map((info) =>
    info.workflowId.startsWith(DELIVERY_PREFIX) ? info.workflowId.slice(DELIVERY_PREFIX.length) : info.workflowId,
  );
  return { parkedStreams: Math.max(count, streams.length), streams };
}
