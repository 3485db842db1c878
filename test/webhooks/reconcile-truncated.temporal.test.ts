/**
 * Reconciliation that cannot go blind (issue 23, item 4), with the worker process operators run
 * (`rampflow worker`, its Prometheus endpoint and its log): on a list longer than the page limit and
 * listed oldest first (the sandbox's default), a run still reaches the newest records, because a list
 * read in full is read from both ends; a run its limits stopped short counts as `truncated` on
 * `rampflow_reconcile_runs_total` and logs one line; a complete run counts as `complete` and sets
 * `rampflow_reconcile_last_complete_run_timestamp_seconds`.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../dev/ports';
import type { customerJourney, reconcileWithService } from '../../workflows';
import { journeyStateQuery, journeyWorkflowId } from '../../workflows/common/messages';
import { JourneyInputSchema } from '../../workflows/schemas';
import type { ReconcileLimits, ReconcileResult } from '../../workflows/reconcile/types';
import { RampStage } from '../../observability/search-attributes';
import { TEST_ONRAMP } from '../support/journey-harness';
import { startTestSandbox, type TestSandbox } from '../support/sandbox';
import { connectClient, uniqueTaskQueue } from '../support/temporal';
import { startWorkerProcess, testWorkerEnv } from '../support/worker-process';
import { until as waitUntil } from '../support/until';

const until = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> =>
  waitUntil(what, probe, timeoutMs);
/** Journeys that poll once an hour: only reconciliation moves them within the test. */
const HOURLY_POLLS = { pollIntervalSeconds: 3600, kycDeadlineSeconds: 86_400 };
const TRUNCATED_LINE = 'reconciliation run truncated';

let sandbox: TestSandbox;
let client: Awaited<ReturnType<typeof connectClient>>;
let worker: { kill: () => void; output: () => string; exited: Promise<number | null> };
let metricsUrl: string;
const taskQueue = uniqueTaskQueue('reconcile-truncated');

beforeAll(async () => {
  // Oldest first (the sandbox's default), and no callback registered: no webhook reaches anyone.
  sandbox = await startTestSandbox({ listOrder: 'oldest-first' });
  client = await connectClient();
  const metricsPort = await freePort();
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  const started = startWorkerProcess(
    testWorkerEnv({ taskQueue, sandboxUrl: sandbox.sandbox.url, metricsPort, logLevel: 'info' }),
  );
  worker = { kill: () => started.child.kill('SIGTERM'), output: started.output, exited: started.exited };
  await until('the worker to start', async () => (worker.output().includes('worker started') ? true : undefined));
});
afterAll(async () => {
  worker?.kill();
  await worker?.exited;
  await client?.close();
  await sandbox?.close();
});

const reconcile = (limits: Partial<ReconcileLimits>): Promise<ReconcileResult> =>
  client.client.workflow.execute<typeof reconcileWithService>('reconcileWithService', {
    taskQueue,
    workflowId: `reconcile-${randomUUID()}`,
    args: [limits],
  });

/** The value of one series of the worker's metrics, by name and a label it carries. */
async function metric(name: string, label = ''): Promise<number | undefined> {
  const text = await (await fetch(metricsUrl)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name}{`) && candidate.includes(label));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

describe('reconciliation on an oldest-first list longer than its page limit', () => {
  it('reaches the newest customer, and counts and logs the run as truncated', async () => {
    // 300 customers, three pages; then the journey's own customer, the newest, alone on page 4.
    await sandbox.control.seed({ customers: 300, externalIdPrefix: `older-${randomUUID()}-` });
    const externalId = `newest-${randomUUID()}`;
    const journey = await client.client.workflow.start<typeof customerJourney>('customerJourney', {
      taskQueue,
      workflowId: journeyWorkflowId(externalId),
      args: [
        JourneyInputSchema.parse({
          customer: { externalId, realName: 'Ada Lovelace', email: 'ada@example.com' },
          onramp: TEST_ONRAMP,
          timings: HOURLY_POLLS,
        }),
      ],
    });
    const customerId = await until('AWAITING_KYC', async () => {
      const state = await journey.query(journeyStateQuery);
      return state.stage === 'AWAITING_KYC' ? state.customer.id : undefined;
    });
    await until('the journey visible at AWAITING_KYC', async () => {
      for await (const workflow of client.client.workflow.list({ query: `WorkflowId = '${journey.workflowId}'` })) {
        if (workflow.typedSearchAttributes.get(RampStage) === 'AWAITING_KYC') return true;
      }
      return undefined;
    });
    // The service approves it; the event goes nowhere.
    await sandbox.control.approveCustomer(customerId);

    // Two pages of four: page 1 and the last, where the newest customer is.
    const result = await reconcile({ maxPages: 2, listOrder: 'unknown' });
    expect(result.pages?.customers).toBe(2);
    expect(result.truncated).toBe(true);
    expect(result.repaired).toBeGreaterThanOrEqual(1);
    await until('the journey past KYC', async () =>
      (await journey.query(journeyStateQuery)).stage !== 'AWAITING_KYC' ? true : undefined,
    );

    expect(await metric('rampflow_reconcile_runs_total', 'outcome="truncated"')).toBe(1);
    expect(await metric('rampflow_reconcile_runs_total', 'outcome="complete"')).toBeUndefined();
    await until('the log line', async () => (worker.output().includes(TRUNCATED_LINE) ? true : undefined), 10_000);
    expect(
      worker
        .output()
        .split('\n')
        .filter((line) => line.includes(TRUNCATED_LINE)),
    ).toHaveLength(1);
    expect(worker.output()).not.toContain('ada@example.com');
    await journey.terminate('test over');
  });

  it('counts a run that reads every list to its end as complete, and sets when it finished', async () => {
    const before = Math.floor(Date.now() / 1000);
    const result = await reconcile({ listOrder: 'unknown' });
    expect(result.truncated).toBe(false);
    expect(await metric('rampflow_reconcile_runs_total', 'outcome="complete"')).toBe(1);
    expect(await metric('rampflow_reconcile_last_complete_run_timestamp_seconds')).toBeGreaterThanOrEqual(before);
    expect(await metric('rampflow_reconcile_runs_total', 'outcome="truncated"')).toBe(1);
    expect(
      worker
        .output()
        .split('\n')
        .filter((line) => line.includes(TRUNCATED_LINE)),
    ).toHaveLength(1);
  });
});
