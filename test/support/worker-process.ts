/**
 * `rampflow worker` as operators run it, a child process configured by the environment, for tests
 * that need the real process: its Prometheus endpoint, its log, being killed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { PROJECT_ROOT } from './run';
import { TEST_PARTNER } from './sandbox';
import { temporalAddress } from './temporal';

export interface WorkerProcess {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr. */
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * A partner event store of the worker's own (the embedded file store takes one writer): test workers
 * run side by side, and none writes into the repository's `.data`.
 */
export const scratchPartnerEventsDir = (): string => mkdtempSync(join(tmpdir(), 'rampflow-worker-events-'));

export function startWorkerProcess(env: NodeJS.ProcessEnv): WorkerProcess {
  const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'rampflow.cjs'), 'worker'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PARTNER_EVENTS_DIR: scratchPartnerEventsDir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  return { child, output: () => output, exited };
}

/**
 * The environment of an unversioned worker on the run's dev server and a task queue of the test's,
 * calling the test's sandbox as the test partner, serving metrics on `metricsPort`.
 */
export function testWorkerEnv(options: {
  taskQueue: string;
  sandboxUrl: string;
  metricsPort: number;
  logLevel?: string;
}): NodeJS.ProcessEnv {
  return {
    TEMPORAL_ADDRESS: temporalAddress(),
    TEMPORAL_TASK_QUEUE: options.taskQueue,
    RAMP_BASE_URL: options.sandboxUrl,
    RAMP_API_KEY: TEST_PARTNER.apiKey,
    RAMP_API_SECRET: TEST_PARTNER.apiSecret,
    WORKER_METRICS_PORT: String(options.metricsPort),
    // Unversioned: these tests are about the process; the versioned worker has its own (test/workers/upgrade.temporal.test.ts).
    TEMPORAL_WORKER_VERSIONING: 'false',
    // The run's one bundle (test/support/temporal-global-setup.ts), not webpack at each start.
    WORKER_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
    LOG_LEVEL: options.logLevel ?? 'info',
  };
}
