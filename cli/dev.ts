/**
 * `rampflow dev` (`npm start`): the whole stack on embedded defaults and a demo customer going from
 * signup to payout, printed live. Installs nothing: the Temporal CLI must already be there (`npm run
 * setup:temporal`, which `npm test` also runs). With `--once` it exits 0 when the demo completes
 * (non-zero with the reason when it does not); without it the stack keeps running until Ctrl-C.
 * The worker's metrics are on 127.0.0.1:$WORKER_METRICS_PORT (9464; 0: off) and the receiver's on
 * its GET /metrics, with the stage age scan every STAGE_AGE_SCAN_SECONDS, as in production.
 */
import { join, resolve } from 'node:path';
import { Runtime } from '@temporalio/worker';
import type { Command } from 'commander';
import { parseEnv, WebhookEnvSchema, WorkerEnvSchema } from '../config/env';
import { runDemo } from '../dev/demo';
import { CORE_LINES_FORWARDED, devSdkLogger } from '../workers/logging';
import { prometheusTelemetry } from '../workers/service-metrics';
import { startStack } from '../dev/stack';
import { clusterOptions, DEFAULT_CLUSTER_DATA_DIR } from './cluster';
import { parsePort } from './options';

const PROJECT_ROOT = resolve(__dirname, '..');

interface DevOptions {
  port: string;
  uiPort: string;
  sandboxPort: string;
  webhookPort: string;
  partnerApiPort: string;
  codecPort: string;
  partnerEventsPort: string;
  dbFile: string;
  once?: boolean;
  timeout: string;
  cluster?: boolean;
  clusterDataDir: string;
}

export function registerDevCommand(program: Command): void {
  program
    .command('dev')
    .description(
      'run the local stack (Temporal dev server and Web UI, sandbox on autopilot, worker and a local partner-event endpoint, webhook receiver, partner API) and a demo journey; Ctrl-C stops it',
    )
    .option('--once', 'exit when the demo has completed (0), or failed or timed out (1)')
    .option('--port <port>', 'Temporal gRPC port', '7233')
    .option('--ui-port <port>', 'Temporal Web UI port', '8233')
    .option('--sandbox-port <port>', 'sandbox port', '8787')
    .option('--webhook-port <port>', 'webhook receiver port', '8788')
    .option('--partner-api-port <port>', 'partner API port', '8789')
    .option('--codec-port <port>', 'codec server port (the Web UI decrypts payloads through it)', '8234')
    .option(
      '--partner-events-port <port>',
      'the local partner endpoint that prints the partner events it receives',
      '8791',
    )
    .option(
      '--db-file <path>',
      "SQLite file that keeps workflow history across restarts; its folder also keeps the stack's keys and partner event log",
      join(PROJECT_ROOT, '.data', 'temporal.db'),
    )
    .option('--timeout <seconds>', 'how long the demo may take before it counts as failed', '300')
    .option('--cluster', 'run on a Temporal server on PostgreSQL (as `rampflow cluster`) instead of the dev server')
    .option('--cluster-data-dir <path>', 'with --cluster: its data folder', DEFAULT_CLUSTER_DATA_DIR)
    .action(async (options: DevOptions) => {
      await runDev(options);
    });
}

async function runDev(options: DevOptions): Promise<void> {
  const progress = (line: string) => process.stdout.write(`[rampflow dev] ${line}\n`);
  const timeoutSeconds = Number(options.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0)
    throw new Error(`--timeout must be a positive number of seconds, got '${options.timeout}'`);
  const ports = {
    port: parsePort('--port', options.port),
    uiPort: parsePort('--ui-port', options.uiPort),
    sandboxPort: parsePort('--sandbox-port', options.sandboxPort),
    webhookPort: parsePort('--webhook-port', options.webhookPort),
    partnerApiPort: parsePort('--partner-api-port', options.partnerApiPort),
    codecPort: parsePort('--codec-port', options.codecPort),
    partnerEventsPort: parsePort('--partner-events-port', options.partnerEventsPort),
  };

  // Served where production serves them (WORKER_METRICS_PORT, the receiver's GET /metrics), so the
  // docs' URLs, `rampflow status` and a local Prometheus work against the dev stack too.
  const observability = parseEnv(
    WorkerEnvSchema.pick({ WORKER_METRICS_PORT: true }).extend(
      WebhookEnvSchema.pick({ STAGE_AGE_SCAN_SECONDS: true }).shape,
    ),
  );
  const workerMetricsPort = observability.WORKER_METRICS_PORT || undefined;

  // The SDK's own lines stay out of the demo's output unless they are warnings (one line each); and
  // this command, not the SDK, decides when the worker stops.
  Runtime.install({
    logger: devSdkLogger(),
    shutdownSignals: [],
    telemetryOptions: {
      ...CORE_LINES_FORWARDED,
      ...(workerMetricsPort ? prometheusTelemetry(`127.0.0.1:${workerMetricsPort}`) : {}),
    },
  });
  const stopRequested = new Promise<NodeJS.Signals>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });

  const cluster = options.cluster
    ? clusterOptions({ port: options.port, dataDir: options.clusterDataDir }, progress)
    : undefined;
  const stack = await startStack({
    ...ports,
    dbFile: options.dbFile,
    ...(cluster ? { cluster } : {}),
    ...(workerMetricsPort ? { workerMetricsPort } : {}),
    stageAgeScanSeconds: observability.STAGE_AGE_SCAN_SECONDS,
    progress,
  });
  const stopDemo = new AbortController();
  try {
    const demo = runDemo(stack, { progress, timeoutMs: timeoutSeconds * 1000, signal: stopDemo.signal }).then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
    );
    const first = await Promise.race([demo, stopRequested]);
    if (typeof first === 'string') {
      progress(`${first}: stopping`);
      // Let the demo's call in flight finish while the stack still runs.
      stopDemo.abort();
      await demo;
      return;
    }
    if (first instanceof Error) {
      progress(`the demo failed: ${first.message}`);
      process.exitCode = 1;
    }
    if (options.once) return;
    progress(
      `the stack keeps running (${stack.temporal.uiUrl ? `Web UI ${stack.temporal.uiUrl}` : `Temporal on ${stack.temporal.address}`}); press Ctrl-C to stop`,
    );
    progress(`${await stopRequested}: stopping`);
  } finally {
    await stack.stop();
    progress('stopped');
  }
}
