/**
 * The worker as the image runs it: `npm run build` (here into a folder of the test's own, so dist/ is
 * left alone), then `node <build>/cli/main.js worker` with NODE_ENV=production. It runs the prebuilt
 * workflow bundle, joins the Worker Deployment under the bundle's hash, which `temporal worker
 * deployment describe` shows, and runs workflows once its version is current. From source, the build
 * ID can be set by hand.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setCurrentVersion } from '../../client/deployment';
import { requireTemporalCli } from '../../dev/temporal-cli';
import { buildIdOfBundle } from '../../workers/versioning';
import type { reconcileWithService } from '../../workflows';
import { PROJECT_ROOT, runScript } from '../support/run';
import { startTestSandbox, TEST_PARTNER, type TestSandbox } from '../support/sandbox';
import { connectClient, temporalAddress, uniqueTaskQueue } from '../support/temporal';
import { until as waitUntil } from '../support/until';
import { scratchPartnerEventsDir } from '../support/worker-process';

interface WorkerProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function startWorker(entry: string, env: NodeJS.ProcessEnv): WorkerProcess {
  const child = spawn(process.execPath, [entry, 'worker'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PARTNER_EVENTS_DIR: scratchPartnerEventsDir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return { child, output: () => output, exited: new Promise((done) => child.on('close', (code) => done(code))) };
}

/** Waits as long as a worker start may take on a loaded machine. */
const until = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> =>
  waitUntil(what, probe, timeoutMs);

/** `temporal worker deployment describe --name <deployment>`, as an operator runs it. */
async function describeWithCli(deploymentName: string): Promise<string> {
  const cli = await requireTemporalCli();
  const { stdout } = await promisify(execFile)(cli.path, [
    'worker',
    'deployment',
    'describe',
    '--name',
    deploymentName,
    '--address',
    temporalAddress(),
  ]);
  return stdout;
}

const startedLine = (output: string) => output.split('\n').find((line) => line.includes('"worker started"'));

let buildDir: string;
let sandbox: TestSandbox;
let client: { client: Client; close: () => Promise<void> };
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  // Inside the project, like dist/: the compiled code finds node_modules by walking up from itself.
  mkdirSync(join(PROJECT_ROOT, '.data'), { recursive: true });
  buildDir = join(mkdtempSync(join(PROJECT_ROOT, '.data', 'test-build-')), 'dist');
  const [build] = await Promise.all([
    runScript('dev/build.ts', ['--out-dir', buildDir], { timeoutMs: 240_000 }),
    (async () => (sandbox = await startTestSandbox()))(),
  ]);
  expect(build.stderr).toBe('');
  expect(build.code).toBe(0);
  client = await connectClient();
}, 300_000);

afterAll(async () => {
  for (const worker of workers) worker.child.kill('SIGTERM');
  await Promise.all(workers.map((worker) => worker.exited));
  await client?.close();
  await sandbox?.close();
  if (buildDir) rmSync(join(buildDir, '..'), { recursive: true, force: true });
});

function workerEnv(taskQueue: string, deploymentName: string): NodeJS.ProcessEnv {
  return {
    TEMPORAL_ADDRESS: temporalAddress(),
    TEMPORAL_TASK_QUEUE: taskQueue,
    TEMPORAL_DEPLOYMENT_NAME: deploymentName,
    RAMP_BASE_URL: sandbox.sandbox.url,
    RAMP_API_KEY: TEST_PARTNER.apiKey,
    RAMP_API_SECRET: TEST_PARTNER.apiSecret,
    WORKER_METRICS_PORT: '0',
    LOG_LEVEL: 'info',
  };
}

describe('the built worker', () => {
  it('runs the prebuilt bundle in production, joins the deployment under its hash, and runs workflows once current', async () => {
    const taskQueue = uniqueTaskQueue('built-worker');
    const deploymentName = `built-${randomUUID().slice(0, 8)}`;
    const buildId = buildIdOfBundle(readFileSync(join(buildDir, 'workflow-bundle.js')));
    const worker = startWorker(join(buildDir, 'cli', 'main.js'), {
      ...workerEnv(taskQueue, deploymentName),
      NODE_ENV: 'production',
    });
    workers.push(worker);
    const started = await until('the built worker to start', async () => startedLine(worker.output())).catch(
      (error: unknown) => {
        throw new Error(`${String(error)}; its output:\n${worker.output()}`);
      },
    );
    expect(JSON.parse(started)).toMatchObject({
      deployment: `${deploymentName}:${buildId}`,
      bundleBuildId: buildId,
      taskQueue,
    });
    expect(worker.output()).not.toContain('bundled the workflows at start');

    const described = await until('the deployment to list the version', async () => {
      const text = await describeWithCli(deploymentName).catch(() => '');
      return text.includes(buildId) ? text : undefined;
    });
    expect(described).toContain(deploymentName);

    // Production makes a version current by hand; until then the worker says how.
    await until('the worker to say its version is not current', async () =>
      worker.output().includes(`set-current-version --deployment-name ${deploymentName} --build-id ${buildId}`)
        ? true
        : undefined,
    );
    await setCurrentVersion(client.client, { deploymentName, buildId });
    const result = await client.client.workflow.execute<typeof reconcileWithService>('reconcileWithService', {
      taskQueue,
      workflowId: `reconcile-${randomUUID()}`,
      args: [{}],
    });
    expect(result).toMatchObject({ truncated: false });
  }, 240_000);

  it("from source, takes TEMPORAL_WORKER_BUILD_ID as its build ID instead of the bundle's hash", async () => {
    const deploymentName = `by-hand-${randomUUID().slice(0, 8)}`;
    const worker = startWorker(join(PROJECT_ROOT, 'bin', 'rampflow.cjs'), {
      ...workerEnv(uniqueTaskQueue('by-hand'), deploymentName),
      TEMPORAL_WORKER_BUILD_ID: 'release-2026.11.23',
    });
    workers.push(worker);
    const started = await until('the worker to start', async () => startedLine(worker.output()));
    expect(JSON.parse(started)).toMatchObject({ deployment: `${deploymentName}:release-2026.11.23` });
    await until('the deployment to list the version', async () =>
      (await describeWithCli(deploymentName).catch(() => '')).includes('release-2026.11.23') ? true : undefined,
    );
  }, 240_000);
});
