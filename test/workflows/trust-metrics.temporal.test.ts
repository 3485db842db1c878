/**
 * What the trust rule turns away is counted where operators look (workflows/common/showing.ts): the
 * worker process operators run (`rampflow worker`) serves `rampflow_deliveries_dismissed_total` and
 * `rampflow_hints_ignored_total` on its Prometheus endpoint, by workflow type and reason, never by id (here: the dismissals).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverToDeposit } from '../../client/deposit-delivery';
import { freePort } from '../../dev/ports';
import { depositWorkflowId } from '../../workflows/common/messages';
import { startTestSandbox, type TestSandbox } from '../support/sandbox';
import { connectClient, uniqueTaskQueue } from '../support/temporal';
import { startWorkerProcess, testWorkerEnv } from '../support/worker-process';
import { until } from '../support/until';

let sandbox: TestSandbox;
let client: Awaited<ReturnType<typeof connectClient>>;
let worker: { kill: () => void; output: () => string; exited: Promise<number | null> };
let metricsUrl: string;
const taskQueue = uniqueTaskQueue('trust-metrics');
const TIMINGS = { pollIntervalSeconds: 1, stepDeadlineSeconds: 60, notFoundGraceSeconds: 1 };

beforeAll(async () => {
  sandbox = await startTestSandbox();
  client = await connectClient();
  const metricsPort = await freePort();
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  const started = startWorkerProcess(
    testWorkerEnv({ taskQueue, sandboxUrl: sandbox.sandbox.url, metricsPort, logLevel: 'error' }),
  );
  worker = { kill: () => started.child.kill('SIGTERM'), output: started.output, exited: started.exited };
  await until(
    'the worker to serve its metrics',
    async () => ((await fetch(metricsUrl).catch(() => undefined))?.ok ? true : undefined),
    90_000,
  );
});
afterAll(async () => {
  worker?.kill();
  await worker?.exited;
  await client?.close();
  await sandbox?.close();
});

/** The series of one metric on the worker's endpoint, as `{labels} value` lines. */
async function series(name: string): Promise<string[]> {
  const text = await (await fetch(metricsUrl)).text();
  return text.split('\n').filter((line) => line.startsWith(`${name}{`));
}

describe("what the trust rule turns away, on the worker's metrics endpoint", () => {
  it('counts each deposit workflow a delivery started for a deposit the service does not have, by type and reason, never by id', async () => {
    const starter = { client: client.client, taskQueue, depositTimings: TIMINGS };
    const made = [randomUUID(), randomUUID()];
    for (const depositId of made) {
      const record = {
        id: depositId,
        customerId: randomUUID(),
        status: 'RECEIVED',
        amount: '1000000.00',
        currency: 'USD',
      };
      await deliverToDeposit(starter, {
        depositId,
        signal: 'deposit',
        event: { key: `DEPOSIT_RECEIVED/${depositId}`, event: 'DEPOSIT_RECEIVED', record, fromPayload: true },
      });
    }
    for (const depositId of made)
      expect(await client.client.workflow.getHandle(depositWorkflowId(depositId)).result()).toMatchObject({
        stage: 'DISMISSED',
      });

    const dismissed = await until(
      'the dismissals on the endpoint',
      async () => {
        const lines = await series('rampflow_deliveries_dismissed_total');
        return lines.some((line) => line.includes('workflow_type="depositLifecycle"') && line.endsWith(' 2'))
          ? lines
          : undefined;
      },
      30_000,
    );
    const line = dismissed.find((candidate) => candidate.includes('workflow_type="depositLifecycle"'))!;
    expect(line).toContain('reason="record-not-found"');
    for (const depositId of made) expect(line).not.toContain(depositId);
  });
});
