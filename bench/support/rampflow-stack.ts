/**
 * rampflow as `rampflow dev` wires it (dev/stack.ts), but with the worker and the webhook receiver as
 * child processes (`rampflow worker`, `rampflow webhooks serve`, configured by the environment like
 * in production) so each one's memory can be read on its own, and the sandbox in this process on
 * autopilot with every step immediate. The receiver is registered with the sandbox only on request,
 * so a benchmark can prepare records without their events flowing.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { freePort } from '../../dev/ports';
import { RampClient } from '../../ramp';
import { createSandbox, uniformAutopilotDelays } from '../../sandbox';
import { registerWebhooks } from '../../webhooks';
import { workerHeapFlag } from '../../workers/memory-budget';
import { startChild, waitUntilReady, type BenchChild } from './child-process';
import { SandboxRequestLog } from './sandbox-request-log';
import { BENCH_PAYLOAD_KEYS_VARIABLE, workerIsPolling, type BenchTemporal } from './temporal';

export const BENCH_PARTNER = { apiKey: 'bench-key', apiSecret: 'bench-secret-0123456789' };

/** Every autopilot step at once: the service is as fast as it can be, so rampflow is what is measured. */
export const IMMEDIATE_AUTOPILOT = uniformAutopilotDelays(0);

export interface RampflowStackOptions {
  /** A name for the child processes' log files. */
  name: string;
  /** The sandbox's delivery scheduler period: a webhook waits up to this long after its event. */
  deliveryTickSeconds: number;
  /** Whether the sandbox's autopilot walks records through the happy path (default true). */
  autopilot?: boolean;
  /** Seconds between the autopilot's steps, as `rampflow sandbox --autopilot-delay` (default 0: immediate). */
  autopilotDelaySeconds?: number;
  /** Start the worker (default true); a receiver-only benchmark may leave it out. */
  worker?: boolean;
  /** The order of the sandbox's lists (default newest first, SandboxOptions.listOrder). */
  listOrder?: 'oldest-first' | 'newest-first';
  /** The timings of the deposits the worker and the receiver start (DEPOSIT_* variables). */
  depositEnv?: Record<string, string>;
  /** The worker's partner event endpoints (PARTNER_EVENT_ENDPOINTS); events are recorded, not pushed, without. */
  partnerEventEnv?: Record<string, string>;
  /** More of the worker's environment (WORKER_MEMORY_MB, say); its heap limit follows WORKER_MEMORY_MB as its launchers set it. */
  workerEnv?: Record<string, string>;
  /** How many worker processes (default 1): more share the service queue, as an autoscaler's replicas would. */
  workers?: number;
  /** The sandbox's rate limit for the partner (429 with Retry-After above it, refused calls counting); none by default. */
  rateLimit?: { callsPerSecond: number; retryAfterSeconds: number };
}

export interface RampflowStack {
  ramp: RampClient;
  requestLog: SandboxRequestLog;
  taskQueue: string;
  /** The first worker process. */
  worker: BenchChild | undefined;
  /** Every worker process, the first included. */
  workers: BenchChild[];
  receiver: BenchChild;
  /** The receiver's delivery URL, token included. */
  webhookUrl: string;
  /** Registers the receiver with the sandbox for every event: from now on webhooks flow. */
  registerReceiver(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRampflowStack(
  temporal: BenchTemporal,
  options: RampflowStackOptions,
): Promise<RampflowStack> {
  const stoppers: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const stopPart of stoppers.reverse()) await stopPart();
  };
  // BENCH_PROFILE=<folder>: the worker and the receiver each write a V8 CPU profile there when they stop (open it in Chrome's DevTools).
  const profile = process.env.BENCH_PROFILE
    ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] }
    : {};
  try {
    const requestLog = new SandboxRequestLog();
    const sandbox = await createSandbox({
      partners: [BENCH_PARTNER],
      ...(options.autopilot === false
        ? {}
        : {
            autopilot: options.autopilotDelaySeconds
              ? uniformAutopilotDelays(options.autopilotDelaySeconds)
              : IMMEDIATE_AUTOPILOT,
          }),
      deliveryTickSeconds: options.deliveryTickSeconds,
      audWhitelistDelaySeconds: 0,
      ...(options.listOrder ? { listOrder: options.listOrder } : {}),
      logger: requestLog.logger,
      ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
    });
    const ramp = new RampClient({ baseUrl: sandbox.url, ...BENCH_PARTNER });
    stoppers.push(async () => {
      await ramp.close();
      await sandbox.close();
    });

    const taskQueue = `bench-${options.name}`;
    const common = {
      TEMPORAL_ADDRESS: temporal.server.address,
      TEMPORAL_NAMESPACE: temporal.server.namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      RAMP_BASE_URL: sandbox.url,
      RAMP_API_KEY: BENCH_PARTNER.apiKey,
      RAMP_API_SECRET: BENCH_PARTNER.apiSecret,
      RAMPFLOW_PAYLOAD_KEYS: BENCH_PAYLOAD_KEYS_VARIABLE,
      // Production's level: the receiver's one line per request is part of its cost.
      LOG_LEVEL: 'info',
    };

    const workers: BenchChild[] = [];
    const workerCount = options.worker === false ? 0 : (options.workers ?? 1);
    for (let index = 0; index < workerCount; index++) {
      // Unversioned: a benchmark's worker is the only one, and nobody would make its version current.
      // Its own partner event store: the embedded one takes one writer, and a benchmark leaves nothing in the repository.
      const eventsDir = mkdtempSync(join(tmpdir(), 'rampflow-bench-events-'));
      const workerEnv = {
        ...common,
        WORKER_METRICS_PORT: '0',
        TEMPORAL_WORKER_VERSIONING: 'false',
        PARTNER_EVENTS_DIR: eventsDir,
        ...options.partnerEventEnv,
        ...options.depositEnv,
        ...options.workerEnv,
      };
      // The heap flag given directly, as the image's entry point does, so the child is the worker itself (bin/rampflow.cjs would relaunch it).
      const started = startChild({
        name: `${options.name}-worker${index === 0 ? '' : `-${index + 1}`}`,
        command: { rampflow: ['worker'] },
        env: workerEnv,
        nodeArgs: [workerHeapFlag(workerEnv), ...(profile.nodeArgs ?? [])],
      });
      workers.push(started);
      stoppers.push(() => started.stop());
    }
    const worker = workers[0];

    const token = randomBytes(24).toString('hex');
    const port = await freePort();
    // The reconciliation schedule runs every 30 minutes, never within a benchmark: left out.
    // The benchmarks drive the receiver from one address and a few hundred journeys far past its
    // production budget (webhooks/receiver-budget.ts), which would answer 429: they measure
    // throughput, so the budget is out of their way.
    const unbudgeted = {
      WEBHOOK_SOURCE_PER_SECOND: '10000',
      WEBHOOK_SOURCE_BURST: '100000',
      WEBHOOK_TARGET_PER_MINUTE: '6000',
      WEBHOOK_TARGET_BURST: '10000',
      WEBHOOK_STARTS_PER_SECOND: '10000',
      WEBHOOK_STARTS_BURST: '100000',
      WEBHOOK_TOTAL_STARTS_PER_SECOND: '10000',
      WEBHOOK_TOTAL_STARTS_BURST: '100000',
    };
    const receiver = startChild({
      name: `${options.name}-receiver`,
      command: { rampflow: ['webhooks', 'serve', '--no-reconcile-schedule'] },
      env: { ...common, WEBHOOK_PORT: String(port), WEBHOOK_TOKEN: token, ...unbudgeted, ...options.depositEnv },
      ...profile,
    });
    stoppers.push(() => receiver.stop());
    const receiverUrl = `http://127.0.0.1:${port}`;
    await waitUntilReady(
      receiver,
      'the webhook receiver',
      async () => (await request(`${receiverUrl}/healthz`)).statusCode === 200,
    );
    for (const started of workers)
      await waitUntilReady(started, 'the worker', () => workerIsPolling(temporal.client, taskQueue));

    const webhookUrl = `${receiverUrl}/webhooks/ramp/${token}`;
    return {
      ramp,
      requestLog,
      taskQueue,
      worker,
      workers,
      receiver,
      webhookUrl,
      async registerReceiver() {
        await registerWebhooks(ramp, { callbackUrl: webhookUrl, rampBaseUrl: sandbox.url, token });
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
