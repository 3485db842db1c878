/**
 * `rampflow status [--json] [--watch [seconds]] [--metrics-url <url>...]`: one screen for an operator,
 * read by client/status.ts from visibility (scoped to the task queue), a sample of parked workflows'
 * states and, when given, the workers' metrics endpoints. `--watch` redraws until Ctrl-C and prints a
 * line when a read fails instead of exiting.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { createRampflowClientFromEnv } from '../client';
import { parseEnv, WorkerEnvSchema } from '../config/env';
import { DEFAULT_PARKED_SAMPLE, readStatus, type StatusSnapshot } from '../client/status';
import type { WorkerMetrics } from '../client/worker-metrics';
import { withPayloadKeys } from './local-stack';

/** The shortest refresh: a read makes 8 visibility calls (at most 30), of the namespace's 10 a second. */
export const MIN_WATCH_SECONDS = 5;
/** A watch never spends more than this many visibility calls a second on average: it waits longer after a bigger read. */
const WATCH_CALLS_PER_SECOND = 2;

interface StatusFlags {
  json?: boolean;
  watch?: number | true;
  metricsUrl: string[];
  taskQueue?: string;
  parkedSample?: number;
}

function watchSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < MIN_WATCH_SECONDS)
    throw new InvalidArgumentError(`a whole number of seconds, at least ${MIN_WATCH_SECONDS}`);
  return seconds;
}

function metricsUrl(value: string, previous: string[]): string[] {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('an http(s) URL such as http://worker:9464/metrics');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidArgumentError('an http(s) URL such as http://worker:9464/metrics');
  return [...previous, value];
}

function sampleSize(value: string): number {
  const size = Number(value);
  if (!Number.isInteger(size) || size < 0 || size > 100) throw new InvalidArgumentError('a whole number from 0 to 100');
  return size;
}

/** `2h05m`, `3d04h`, `45s`: how long before `now`. */
export function age(since: string, now: string): string {
  const seconds = Math.max(0, Math.round((Date.parse(now) - Date.parse(since)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h${String(minutes % 60).padStart(2, '0')}m`;
  return `${Math.floor(hours / 24)}d${String(hours % 24).padStart(2, '0')}h`;
}

function table(rows: string[][], indent = '  '): string[] {
  const widths = rows.reduce<number[]>(
    (max, row) => row.map((cell, index) => Math.max(max[index] ?? 0, cell.length)),
    [],
  );
  // Numbers right-aligned, everything else left.
  return rows.map((row) =>
    `${indent}${row.map((cell, index) => (/^\d+$/.test(cell) ? cell.padStart(widths[index]!) : cell.padEnd(widths[index]!))).join('  ')}`.trimEnd(),
  );
}

function metricsLines(metrics: WorkerMetrics[] | null, now: string): string[] {
  if (metrics === null)
    return ['  metrics: not read (WORKER_METRICS_PORT is 0: pass --metrics-url http://<worker>:9464/metrics)'];
  return metrics.flatMap((worker): string[] => {
    if (!worker.ok) return [`  ${worker.url}: not read: ${worker.error ?? 'unknown error'}`];
    const causes = Object.entries(worker.outage);
    const down = causes.filter(([, value]) => value >= 1).map(([cause]) => cause);
    const outage =
      causes.length === 0
        ? 'rampflow_service_outage not served'
        : down.length > 0
          ? `OUTAGE: ${down.join(', ')}`
          : 'no outage';
    const requests = worker.serviceRequests;
    const total = Object.values(requests).reduce((sum, count) => sum + count, 0);
    const calls = `service calls since start ${total}: 429 ${requests['429'] ?? 0}, 5xx ${requests['5xx'] ?? 0}, network ${requests.network ?? 0}`;
    const reconcile = worker.lastCompleteReconcile
      ? `last complete reconciliation ${age(worker.lastCompleteReconcile, now)} ago`
      : 'no complete reconciliation on this worker yet';
    return [`  ${worker.url}: ${outage}`, `    ${calls}`, `    ${reconcile}`];
  });
}

const IDS_PER_LINE = 4;

/** A parked group's workflow IDs, a few a line. */
function idLines(ids: readonly string[]): string[] {
  const lines: string[] = [];
  for (let at = 0; at < ids.length; at += IDS_PER_LINE)
    lines.push(`    ${ids.slice(at, at + IDS_PER_LINE).join('  ')}`);
  return lines;
}

/** The one screen, in sections with aligned counts. */
export function formatStatus(status: StatusSnapshot): string {
  const now = status.readAt;
  const lines: string[] = [
    `rampflow status: task queue ${status.taskQueue}, namespace ${status.namespace}, at ${now}`,
    `counts as indexed by visibility (a moment behind the workflows); ${status.visibilityCalls} visibility calls`,
  ];
  for (const kind of status.kinds) {
    lines.push(
      '',
      `${kind.kind}: ${kind.running} running${kind.otherStage > 0 ? ` (${kind.otherStage} at no stage listed)` : ''}`,
    );
    const rows = kind.stages.map((stage) => [
      stage.stage,
      String(stage.count),
      stage.oldestInStage
        ? `longest here ${age(stage.oldestInStage.since, now)}`
        : stage.oldestUnknown
          ? 'longest here: not on the first 1000 listed'
          : '',
      stage.oldestInStage?.workflowId ?? '',
    ]);
    lines.push(...table(rows));
  }
  const { parked } = status;
  lines.push('', `parked (NEEDS_ATTENTION): ${parked.total}`);
  if (parked.total > 0) {
    lines.push(
      parked.sample
        ? `  reasons from a sample: ${parked.read} of ${parked.total} states read`
        : `  reasons from all ${parked.total} states`,
    );
    // The reason in words, whole, under its row: a cut one hides what an operator has to act on; then
    // the group's IDs: what an operator's next command (`payout status <reference>`, a retry) takes.
    const rows = table(
      parked.reasons.map((reason) => [
        reason.kind,
        reason.reason,
        `at ${reason.stage}`,
        String(reason.count),
        `longest ${age(reason.oldestSince, now)}`,
      ]),
    );
    parked.reasons.forEach((reason, index) =>
      lines.push(rows[index]!, `      e.g. ${reason.example}`, ...idLines(reason.workflowIds)),
    );
    for (const why of parked.unreadBecause) lines.push(`  not read: ${why}`);
  }
  lines.push('', 'last reconciliation');
  const reconcile = status.reconciliation;
  if (!reconcile) lines.push('  none on this task queue (within retention)');
  else {
    for (const run of [reconcile.latest, ...(reconcile.lastEnded ? [reconcile.lastEnded] : [])]) {
      const when = run.closeTime ? `ended ${age(run.closeTime, now)} ago` : `started ${age(run.startTime, now)} ago`;
      const result = run.result
        ? `: examined ${run.result.examined.customers} customers, ${run.result.examined.deposits} deposits, ${run.result.examined.trades} trades; repaired ${run.result.repaired}, missed ${run.result.missed}${run.result.truncated ? ', TRUNCATED' : ''}`
        : '';
      lines.push(`  ${run.workflowId} ${run.status}, ${when}${result}`);
    }
  }
  lines.push('', 'service health');
  lines.push(...metricsLines(status.metrics, now));
  lines.push('', 'webhooks and partner events');
  lines.push(
    ...table([
      ['ramp events parked (EVENT_UNROUTED)', String(status.webhooks.parked), 'rampflow events list'],
      ['ramp events waiting for their target', String(status.webhooks.waiting), ''],
      [
        'partner event streams parked',
        String(status.partnerEvents.parkedStreams),
        status.partnerEvents.streams.join(', '),
      ],
    ]),
  );
  for (const error of status.errors) lines.push('', `${error.section}: not read: ${error.message}`);
  return `${lines.join('\n')}\n`;
}

/**
 * Without --metrics-url, the worker's endpoint on this host at WORKER_METRICS_PORT (9464 by default),
 * where `npm start` and a worker run beside the operator serve it; none when the port is 0.
 */
function localWorkerMetricsUrls(env: NodeJS.ProcessEnv = process.env): string[] {
  const { WORKER_METRICS_PORT } = parseEnv(WorkerEnvSchema.pick({ WORKER_METRICS_PORT: true }), env);
  return WORKER_METRICS_PORT ? [`http://127.0.0.1:${WORKER_METRICS_PORT}/metrics`] : [];
}

async function status(flags: StatusFlags): Promise<void> {
  const rampflow = await createRampflowClientFromEnv(withPayloadKeys());
  const options = {
    taskQueue: flags.taskQueue ?? rampflow.taskQueue,
    metricsUrls: flags.metricsUrl.length > 0 ? flags.metricsUrl : localWorkerMetricsUrls(),
    ...(flags.parkedSample !== undefined ? { parkedSample: flags.parkedSample } : {}),
  };
  const print = (snapshot: StatusSnapshot, clear: boolean) => {
    if (flags.json)
      process.stdout.write(clear ? `${JSON.stringify(snapshot)}\n` : `${JSON.stringify(snapshot, null, 2)}\n`);
    else process.stdout.write(`${clear ? '\x1b[2J\x1b[H' : ''}${formatStatus(snapshot)}`);
  };
  try {
    if (flags.watch === undefined) {
      print(await readStatus(rampflow.temporal, options), false);
      return;
    }
    await watch(flags.watch === true ? MIN_WATCH_SECONDS : flags.watch, async () => {
      const snapshot = await readStatus(rampflow.temporal, options);
      print(snapshot, true);
      return snapshot.visibilityCalls;
    });
  } finally {
    await rampflow.close();
  }
}

/** Reads every `seconds` (longer after a read of many calls) until SIGINT or SIGTERM; a failed read prints one line. */
async function watch(seconds: number, read: () => Promise<number>): Promise<void> {
  let stop: () => void = () => {};
  const stopped = new Promise<void>((done) => (stop = done));
  let running = true;
  const onSignal = () => {
    running = false;
    stop();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    while (running) {
      let calls = 0;
      try {
        calls = await read();
      } catch (error) {
        process.stdout.write(
          `${new Date().toISOString()} ${error instanceof Error ? error.message : String(error)}; trying again in ${seconds}s\n`,
        );
      }
      const waitMs = Math.max(seconds, calls / WATCH_CALLS_PER_SECOND) * 1000;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([stopped, new Promise<void>((wake) => (timer = setTimeout(wake, waitMs)))]);
      clearTimeout(timer);
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description(
      'one screen for an operator: running journeys, deposits and payouts by stage (as indexed), parked ones and why, the last reconciliation, service health, parked webhooks and partner events (connection from TEMPORAL_* variables)',
    )
    .option('--json', 'print the snapshot as JSON (with --watch, one line per refresh)')
    .option(
      '--watch [seconds]',
      `redraw every so many seconds (default and least ${MIN_WATCH_SECONDS}) until Ctrl-C`,
      watchSeconds,
    )
    .option(
      '--metrics-url <url>',
      "a worker's Prometheus endpoint, e.g. http://worker:9464/metrics (repeat for each worker; default: this host's, http://127.0.0.1:$WORKER_METRICS_PORT/metrics)",
      metricsUrl,
      [],
    )
    .option(
      '--task-queue <name>',
      'the deployment to report on (default TEMPORAL_TASK_QUEUE): every query is scoped to it',
    )
    .option(
      '--parked-sample <n>',
      `read at most this many parked workflows' states for their reasons (0 to 100, default ${DEFAULT_PARKED_SAMPLE})`,
      sampleSize,
    )
    .action(status);
}
