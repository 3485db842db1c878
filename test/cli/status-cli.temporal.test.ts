/**
 * `rampflow status` as an operator runs it: a child process against the shared dev server, scoped to
 * the harness's task queue (other tests' workflows share the server), with journeys at three stages,
 * one parked by its KYC deadline, a reconciliation run, and a real worker process's metrics endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusSnapshot } from '../../client/status';
import { freePort } from '../../dev/ports';
import { startActiveJourney, startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { runRampflow, type RunResult } from '../support/run';
import { temporalAddress, uniqueTaskQueue } from '../support/temporal';
import { until } from '../support/until';
import { startWorkerProcess, testWorkerEnv, type WorkerProcess } from '../support/worker-process';

let h: JourneyHarness;
let worker: WorkerProcess | undefined;
let metricsPort = 0;
let parkedId = '';

/** `rampflow` with no worker metrics on this host unless `workerMetricsPort` says where they are. */
function rampflowWith(workerMetricsPort: number, ...args: string[]): Promise<RunResult> {
  return runRampflow(args, {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: temporalAddress(),
      TEMPORAL_TASK_QUEUE: h.taskQueue,
      WORKER_METRICS_PORT: String(workerMetricsPort),
    },
  });
}

function rampflow(...args: string[]): Promise<RunResult> {
  return rampflowWith(0, ...args);
}

async function snapshot(...args: string[]): Promise<StatusSnapshot> {
  const result = await rampflow('status', '--json', ...args);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as StatusSnapshot;
}

const stageCount = (status: StatusSnapshot, kind: string, stage: string) =>
  status.kinds.find((one) => one.kind === kind)?.stages.find((one) => one.stage === stage)?.count;

beforeAll(async () => {
  h = await startJourneyHarness();
  // A worker process of its own task queue, only for its metrics endpoint.
  metricsPort = await freePort();
  worker = startWorkerProcess(
    testWorkerEnv({
      taskQueue: uniqueTaskQueue('status-metrics'),
      sandboxUrl: h.sandbox.url,
      metricsPort,
      logLevel: 'error',
    }),
  );
  const waiting = await h.startJourney({});
  const parked = await h.startJourney({ timings: { kycDeadlineSeconds: 2 } });
  parkedId = parked.workflowId;
  await startActiveJourney(h);
  await h.waitForJourney(waiting, (state) => state.stage === 'AWAITING_KYC');
  await h.waitForJourney(parked, (state) => state.stage === 'NEEDS_ATTENTION');
  await h.reconcile();
}, 120_000);

afterAll(async () => {
  worker?.child.kill('SIGTERM');
  await worker?.exited;
  await h?.close();
});

describe('rampflow status', () => {
  it("--json counts the task queue's journeys by stage as indexed, the parked one's reason from its state, and the last reconciliation", async () => {
    const status = await until(
      'visibility to index every stage',
      async () => {
        const read = await snapshot();
        const indexed =
          stageCount(read, 'journeys', 'AWAITING_KYC') === 1 &&
          stageCount(read, 'journeys', 'NEEDS_ATTENTION') === 1 &&
          stageCount(read, 'journeys', 'ACTIVE') === 1;
        return indexed && read.reconciliation?.latest.status === 'COMPLETED' ? read : undefined;
      },
      30_000,
      500,
    );
    expect(status.taskQueue).toBe(h.taskQueue);
    const journeys = status.kinds.find((kind) => kind.kind === 'journeys')!;
    expect(journeys).toMatchObject({ running: 3, countedBy: 'listed', otherStage: 0 });
    const parkedLongest = journeys.stages.find((stage) => stage.stage === 'NEEDS_ATTENTION')!.oldestInStage!;
    expect(parkedLongest.workflowId).toBe(parkedId);
    // Time in the stage, not since the run started: it parked after its 2-second KYC deadline.
    const { startTime } = await h.client.workflow.getHandle(parkedId).describe();
    expect(Date.parse(parkedLongest.since) - startTime.getTime()).toBeGreaterThanOrEqual(2_000);
    expect(journeys.stages.find((stage) => stage.stage === 'CREATING_CUSTOMER')).toEqual({
      stage: 'CREATING_CUSTOMER',
      count: 0,
    });
    expect(status.kinds.map((kind) => kind.kind)).toEqual(['journeys', 'deposits', 'payouts']);

    expect(status.parked).toMatchObject({ total: 1, asked: 1, read: 1, sample: false, unreadBecause: [] });
    expect(status.parked.reasons).toEqual([
      expect.objectContaining({
        kind: 'journeys',
        reason: 'Deadline',
        stage: 'AWAITING_KYC',
        count: 1,
        example: expect.stringContaining('deadline'),
      }),
    ]);
    expect(status.reconciliation!.latest.result).toMatchObject({
      repaired: expect.any(Number),
      truncated: false,
      examined: { customers: expect.any(Number) },
    });
    expect(status).toMatchObject({
      visibilityCalls: 8,
      metrics: null,
      errors: [],
      webhooks: { parked: 0, waiting: 0 },
      partnerEvents: { parkedStreams: 0, streams: [] },
    });
  });

  it('prints one screen of sections with aligned counts, and says the metrics were not read', async () => {
    const result = await rampflow('status');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const text = result.stdout;
    expect(text).toContain(`rampflow status: task queue ${h.taskQueue}, namespace default`);
    expect(text).toContain('counts as indexed by visibility');
    for (const heading of [
      'journeys: 3 running',
      'deposits: ',
      'payouts: ',
      'parked (NEEDS_ATTENTION): 1',
      'last reconciliation',
      'service health',
      'webhooks and partner events',
    ])
      expect(text).toContain(heading);
    expect(text).toMatch(/^ {2}NEEDS_ATTENTION +1 +longest here \d+\w* +customer\//m);
    expect(text).toMatch(/^ {2}journeys +Deadline +at AWAITING_KYC +1 +longest /m);
    expect(text).toMatch(/^ {2}reconcile-\S+ COMPLETED, ended \S+ ago: examined \d+ customers/m);
    expect(text).toContain('metrics: not read (WORKER_METRICS_PORT is 0: pass --metrics-url');
  });

  it("--metrics-url reads a worker process's outage gauge and calls, and names an endpoint it cannot read", async () => {
    const url = `http://127.0.0.1:${metricsPort}/metrics`;
    await until(
      'the worker to serve its metrics',
      async () => ((await fetch(url).catch(() => undefined))?.ok ? true : undefined),
      90_000,
    );
    const unreachable = `http://127.0.0.1:${await freePort()}/metrics`;
    const status = await snapshot('--metrics-url', url, '--metrics-url', unreachable);
    expect(status.metrics).toHaveLength(2);
    expect(status.metrics![0]).toMatchObject({
      url,
      ok: true,
      outage: { UNAUTHORISED: 0, UNREACHABLE: 0, SERVER_ERROR: 0 },
    });
    expect(status.metrics![1]).toMatchObject({ url: unreachable, ok: false, error: expect.any(String) });

    const text = (await rampflow('status', '--metrics-url', url)).stdout;
    expect(text).toContain(`${url}: no outage`);
    expect(text).toMatch(/service calls since start \d+: 429 \d+, 5xx \d+, network \d+/);
  });

  it("without --metrics-url reads the worker's endpoint on this host at WORKER_METRICS_PORT", async () => {
    const url = `http://127.0.0.1:${metricsPort}/metrics`;
    await until(
      'the worker to serve its metrics',
      async () => ((await fetch(url).catch(() => undefined))?.ok ? true : undefined),
      90_000,
    );
    const result = await rampflowWith(metricsPort, 'status', '--json');
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as StatusSnapshot).metrics).toEqual([
      expect.objectContaining({ url, ok: true, outage: { UNAUTHORISED: 0, UNREACHABLE: 0, SERVER_ERROR: 0 } }),
    ]);
  });

  it('--watch redraws until stopped, and refuses a refresh under five seconds', async () => {
    const framesOf = (stdout: string) => stdout.split('\x1b[2J\x1b[H').filter((frame) => frame !== '');
    // Stopped once it has redrawn (a second frame, five seconds after the first), however slow its start.
    const watched = await runRampflow(['status', '--watch', '5'], {
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: temporalAddress(),
        TEMPORAL_TASK_QUEUE: h.taskQueue,
        WORKER_METRICS_PORT: '0',
      },
      stopWhen: (stdout) => framesOf(stdout)[1]?.includes('journeys: ') === true,
    });
    const frames = framesOf(watched.stdout);
    expect(frames.length).toBeGreaterThanOrEqual(2);
    for (const frame of frames) expect(frame).toContain('journeys: 3 running');

    const refused = await rampflow('status', '--watch', '1');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('at least 5');
  });
});
