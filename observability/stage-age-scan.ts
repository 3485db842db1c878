/**
 * How long the longest waiter at each stage has been there: the webhook receiver scans visibility
 * every STAGE_AGE_SCAN_SECONDS (60 by default) and serves `rampflow_stage_oldest_waiter_seconds
 * {workflow_type, stage}` on its GET /metrics, computed at scrape time from the oldest waiter's
 * RampStageSince (workflows/common/showing.ts). The alert RampflowStageOverSla compares it with each stage's
 * SLA (docs/operating/stage-sla.md), so a journey stuck now is seen now, not when it leaves the stage.
 *
 * Visibility on SQL (the dev server's SQLite, the cluster's PostgreSQL) has no ORDER BY, so the oldest
 * is found by narrowing on RampStageSince, remembered between scans:
 *
 * 1. `RampStageSince` up to the oldest found last time: while that waiter is still there (the usual
 *    case), one call returns it (and any older one indexed late) and the answer is exact.
 * 2. When it has left, or on the first scan, one page (up to 1000) of the stage's running waiters;
 *    when that is all of them, its oldest is exact.
 * 3. Otherwise `RampStageSince < <the oldest so far>`, again, up to `callsPerStage` calls a scan;
 *    past them the oldest so far is served (an age no larger than the true one) and the next scan
 *    continues from it.
 *
 * So a scan costs one list call per scanned stage (15) in the steady state, at most `callsPerStage`
 * (3) each: 0.25 visibility calls a second at the default interval, 0.75 at worst, of the namespace's
 * `frontend.namespaceRPS.visibility` (docs/deploying/visibility.md). The calls run one at a time. A
 * stage whose scan failed keeps its last oldest (its age keeps growing at scrape) and the failure is
 * logged; an empty stage serves 0. Waiters that entered their stage before RampStageSince existed are
 * not seen until they move (their workflow indexes the attribute on its next stage shown).
 */
import type { Client } from '@temporalio/client';
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers';
import { Gauge, type Registry } from 'prom-client';
import { METRICS } from './metric-catalogue';
import { RampStage, RampStageSince } from './search-attributes';

/** The stages watched: every stage a running journey, deposit or payout waits at, but a journey's lifelong ACTIVE. */
export const SCANNED_STAGES = [
  {
    workflowType: 'customerJourney',
    stages: ['CREATING_CUSTOMER', 'AWAITING_KYC', 'SETTING_UP_RAMPS', 'AWAITING_ACCOUNTS', 'NEEDS_ATTENTION'],
  },
  {
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
  },
  { workflowType: 'payout', stages: ['CREATING_PAYMENT', 'AWAITING_SETTLEMENT', 'NEEDS_ATTENTION'] },
] as const;

/** Calls one stage may take in one scan (see the module's comment). */
export const DEFAULT_CALLS_PER_STAGE = 3;
const DEFAULT_PAGE_SIZE = 1000;

export interface StageAgeScanOptions {
  client: Client;
  /** Every query is scoped to the deployment's task queue. */
  taskQueue: string;
  registry: Registry;
  callsPerStage?: number;
  /** Page size of each list call (default 1000, visibility's largest). */
  pageSize?: number;
  now?: () => number;
  /** Told when a stage's scan fails (the receiver logs it). */
  onError?: (failure: { workflowType: string; stage: string; message: string }) => void;
}

export interface Oldest {
  /** RampStageSince of the oldest waiter found, ms. */
  since: number | undefined;
  /** False while the narrowing (3. above) has not finished: `since` may not be the oldest yet. */
  exact: boolean;
}

const TASK_QUEUE = /^[^'"\\]{1,1000}$/;
const iso = (ms: number): string => new Date(ms).toISOString();

export class StageAgeScan {
  /** Visibility calls made since the scan was created (a test and the docs count them). */
  calls = 0;
  private readonly oldest = new Map<string, Oldest>();
  private readonly callsPerStage: number;
  private readonly now: () => number;

  constructor(private readonly options: StageAgeScanOptions) {
    if (!TASK_QUEUE.test(options.taskQueue)) throw new Error('taskQueue: no quotes or backslashes');
    this.callsPerStage = Math.max(2, options.callsPerStage ?? DEFAULT_CALLS_PER_STAGE);
    this.now = options.now ?? Date.now;
    const { oldest, now } = this;
    new Gauge({
      name: METRICS.stageOldestWaiter.name,
      help: METRICS.stageOldestWaiter.help,
      labelNames: ['workflow_type', 'stage'] as const,
      registers: [options.registry],
      collect() {
        this.reset();
        const at = now();
        for (const [key, found] of oldest) {
          const [workflow_type = '', stage = ''] = key.split('\0');
          this.set({ workflow_type, stage }, found.since === undefined ? 0 : Math.max(0, (at - found.since) / 1000));
        }
      },
    });
  }

  /** One scan of every stage, one call at a time; a stage's failure does not stop the others. */
  async scanOnce(): Promise<void> {
    for (const { workflowType, stages } of SCANNED_STAGES) {
      for (const stage of stages) {
        try {
          this.oldest.set(`${workflowType}\0${stage}`, await this.scanStage(workflowType, stage));
        } catch (error) {
          this.options.onError?.({
            workflowType,
            stage,
            message: error instanceof Error ? error.message : String(error),
          });
        }
      }
    }
  }

  /** The oldest waiter's RampStageSince found at a stage (ms), and whether the search for it has finished. */
  oldestAt(workflowType: string, stage: string): Oldest | undefined {
    return this.oldest.get(`${workflowType}\0${stage}`);
  }

  /** Scans every `seconds` until the returned function is called; the first scan starts at once. */
  start(seconds: number): () => void {
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const loop = async (): Promise<void> => {
      await this.scanOnce();
      if (stopped) return;
      timer = setTimeout(() => void loop(), seconds * 1000);
      timer.unref();
    };
    void loop();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }

  private async scanStage(workflowType: string, stage: string): Promise<Oldest> {
    const waiting = `WorkflowType = '${workflowType}' AND ExecutionStatus = 'Running' AND TaskQueue = '${this.options.taskQueue}' AND ${RampStage.name} = '${stage}'`;
    const remembered = this.oldest.get(`${workflowType}\0${stage}`)?.since;
    let calls = 0;
    let bound: number | undefined;
    if (remembered !== undefined) {
      calls += 1;
      // `< remembered + 1 ms` rather than `<= remembered`: SQL visibility stores the time at a finer
      // precision than the millisecond it was set with, and `<=` the same instant misses it.
      const page = await this.page(`${waiting} AND ${RampStageSince.name} < '${iso(remembered + 1)}'`);
      if (page.oldest !== undefined && page.complete) return { since: page.oldest, exact: true };
      bound = page.oldest;
    }
    if (bound === undefined) {
      calls += 1;
      const page = await this.page(waiting);
      if (page.complete) return { since: page.oldest, exact: true };
      // A full page none of which has RampStageSince: nothing to narrow from.
      if (page.oldest === undefined) return { since: undefined, exact: false };
      bound = page.oldest;
    }
    while (calls < this.callsPerStage) {
      calls += 1;
      const page = await this.page(`${waiting} AND ${RampStageSince.name} < '${iso(bound)}'`);
      if (page.oldest === undefined) return { since: bound, exact: true };
      bound = page.oldest;
      if (page.complete) return { since: bound, exact: true };
    }
    return { since: bound, exact: false };
  }

  /** One page, never more: the earliest RampStageSince on it, and whether it was the whole list. */
  private async page(query: string): Promise<{ oldest: number | undefined; complete: boolean }> {
    this.calls += 1;
    const { client } = this.options;
    const { namespace, loadedDataConverter } = client.options;
    const response = await client.workflowService.listWorkflowExecutions({
      namespace,
      query,
      pageSize: this.options.pageSize ?? DEFAULT_PAGE_SIZE,
    });
    let oldest: number | undefined;
    for (const raw of response.executions) {
      const info = await executionInfoFromRaw(raw, loadedDataConverter, raw, namespace);
      const since = info.typedSearchAttributes.get(RampStageSince)?.getTime();
      if (since !== undefined && (oldest === undefined || since < oldest)) oldest = since;
    }
    return { oldest, complete: !response.nextPageToken || response.nextPageToken.length === 0 };
  }
}
