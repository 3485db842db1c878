/**
 * The worker as operators run it: `rampflow worker`, a child process configured by the environment,
 * which a fault case can kill outright (SIGKILL: no shutdown, in-flight activities simply vanish).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { inject } from 'vitest';
import { PROJECT_ROOT } from '../../support/run';
import { TEST_PARTNER } from '../../support/sandbox';
import { FAST_DEPOSIT_TIMINGS } from '../../support/test-journeys';
import { until } from './until';
import { scratchPartnerEventsDir } from '../../support/worker-process';

export interface WorkerProcess {
  /** Resolves once the worker logged that it polls. */
  started: Promise<void>;
  /** Kills it without warning and waits until it is gone. */
  kill(): Promise<void>;
  /** SIGTERM: the graceful stop; waits until it is gone. */
  stop(): Promise<void>;
  /** Whether it has exited (by itself or because it was stopped). */
  exited(): boolean;
  output(): string;
  /** The launcher's process id (bin/rampflow.cjs; the worker may run as its child). */
  pid: number | undefined;
}

export function startWorkerProcess(options: {
  temporalAddress: string;
  taskQueue: string;
  rampBaseUrl: string;
  /** The worker's key pair (TEST_PARTNER's unless given: a partner may hold several). */
  credentials?: { apiKey: string; apiSecret: string };
  /** How much of its output to keep, from the end (enough for a failure message by default). */
  keepOutputChars?: number;
  /**
   * More of its environment, over the defaults: e.g. PARTNER_EVENTS_DIR (a scratch folder by default;
   * give the same one across a restart so the store survives it) and PARTNER_EVENT_ENDPOINTS.
   */
  env?: Record<string, string>;
}): WorkerProcess {
  const keep = options.keepOutputChars ?? 20_000;
  const credentials = options.credentials ?? TEST_PARTNER;
  const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'rampflow.cjs'), 'worker'], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      PARTNER_EVENTS_DIR: scratchPartnerEventsDir(),
      TEMPORAL_ADDRESS: options.temporalAddress,
      TEMPORAL_TASK_QUEUE: options.taskQueue,
      RAMP_BASE_URL: options.rampBaseUrl,
      RAMP_API_KEY: credentials.apiKey,
      RAMP_API_SECRET: credentials.apiSecret,
      WORKER_METRICS_PORT: '0',
      // Versioning is not what these cases break (test/workers/upgrade.temporal.test.ts is where it is tested).
      TEMPORAL_WORKER_VERSIONING: 'false',
      // The suite's one bundle (test/faults/support/global-setup.ts): bundled at each start, every
      // worker a case starts or restarts spent tens of CPU-seconds on webpack first.
      WORKER_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      DEPOSIT_POLL_INTERVAL_SECONDS: String(FAST_DEPOSIT_TIMINGS.pollIntervalSeconds),
      DEPOSIT_STEP_DEADLINE_SECONDS: String(FAST_DEPOSIT_TIMINGS.stepDeadlineSeconds),
      // info: the start line tells when polling begins.
      LOG_LEVEL: 'info',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let started = false;
  const append = (chunk: string) => {
    started ||= chunk.includes('worker started');
    output = (output + chunk).slice(-keep);
  };
  child.stdout.setEncoding('utf8').on('data', append);
  child.stderr.setEncoding('utf8').on('data', append);
  let gone = false;
  const exit = new Promise<void>((done) => child.once('close', () => done()));
  void exit.then(() => (gone = true));

  const end = async (signal: NodeJS.Signals) => {
    if (!gone) child.kill(signal);
    await exit;
  };
  return {
    started: until(
      'the worker process to start polling',
      async () => {
        if (gone) throw new Error(`the worker process exited during start-up:\n${output}`);
        return started ? true : undefined;
      },
      { timeoutMs: 60_000 },
    ).then(() => undefined),
    kill: () => end('SIGKILL'),
    stop: () => end('SIGTERM'),
    exited: () => gone,
    output: () => output,
    pid: child.pid,
  };
}
