/**
 * "The service is never flooded" (docs/deploying/rate-limits.md): hundreds to
 * thousands of parked journeys retried at once (`retry --all`) against a sandbox that answers 429
 * once N calls arrived in the last second. Measured from the sandbox's request log: no sliding second
 * with more than N requests arriving (those refused with 429 counted: they reached the service too),
 * no 429 at all, and every journey resumes and gets its customer created. RATE_LIMIT_JOURNEYS sets the count
 * (1,000 by default), RATE_LIMIT_WORKERS the workers (2 by default, see WORKERS), RATE_LIMIT_REPORT a file the
 * measurements are written to.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { RampflowClient } from '../../client/rampflow-client';
import { dataConverterFromEnv } from '../../codec';
import { RampClient } from '../../ramp';
import { createRampflowWorker, type RampflowWorker } from '../../workers/worker';
import { journeyWorkflowId } from '../../workflows/ids';
import { JourneyInputSchema } from '../../workflows/journey-input';
import { startTestSandbox, TEST_PARTNER, type TestSandbox } from '../support/sandbox';
import { FAST_DEPOSIT_TIMINGS } from '../support/test-journeys';
import { startTemporalOnFile, type TemporalOnFile } from './support/temporal-on-file';
import { until } from './support/until';

/** Journeys parked, then retried at once. */
const JOURNEYS = Number(process.env.RATE_LIMIT_JOURNEYS ?? 1_000);
/** The service's limit (calls a second, sliding), and every worker's RAMP_MAX_CALLS_PER_SECOND. */
const N = 40;
/**
 * Worker processes polling the queues (two by default: the limit is the partner's, across workers).
 * Each one's client keeps to its share, N / WORKERS, as RAMP_WORKER_PROCESSES makes a worker process
 * do; the service queue is dispatched at N / 2 activities a second across them (workers/worker.ts).
 */
const WORKERS = Number(process.env.RATE_LIMIT_WORKERS ?? 2);

/** Journeys that wait for nothing after their customer exists: no poll, no deadline within the case. */
const QUIET_TIMINGS = { pollIntervalSeconds: 3_600, pollBackoffCapSeconds: 3_600, kycDeadlineSeconds: 86_400, accountsDeadlineSeconds: 86_400 };

interface RequestLine {
  path: string;
  outcome: string;
  receivedAt: number;
}

/** The most calls that arrived within any one second (a sliding window over arrival times). */
function maxPerSlidingSecond(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; last < sorted.length; last++) {
    while (sorted[last]! - sorted[first]! >= 1_000) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

async function inBatches<T>(items: T[], size: number, work: (item: T) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < items.length; start += size) await Promise.all(items.slice(start, start + size).map(work));
}

let temporal: TemporalOnFile;
let service: TestSandbox;
let connection: Connection;
let client: Client;
const requests: RequestLine[] = [];
/** Per worker, when each of its attempts left. */
const sent: number[][] = [];
const workers: { worker: RampflowWorker; done: Promise<void>; connection: NativeConnection; ramp: RampClient }[] = [];
const taskQueue = `rate-limit-${randomUUID()}`;

beforeAll(async () => {
  temporal = await startTemporalOnFile();
  // The sandbox's request log, kept: one line per request with when it arrived (no customer data).
  const log = pino({ level: 'info' }, { write: (line: string) => void (JSON.parse(line).msg === 'request' && requests.push(JSON.parse(line) as RequestLine)) });
  service = await startTestSandbox({ logger: log });
  connection = await Connection.connect({ address: temporal.address });
  client = new Client({ connection, dataConverter: dataConverterFromEnv() });
  for (let index = 0; index < WORKERS; index++) {
    const workerConnection = await NativeConnection.connect({ address: temporal.address });
    // A pacer of its own per client (a clock of its own, ramp/http-client.ts): as two processes would be.
    const sentAt: number[] = [];
    sent.push(sentAt);
    // Its share of the partner's limit (RAMP_WORKER_PROCESSES = WORKERS, workers/process.ts); each attempt noted as it leaves.
    const ramp = new RampClient({ baseUrl: service.sandbox.url, ...TEST_PARTNER, maxCallsPerSecond: N / WORKERS, now: () => Date.now(), onCanonicalString: () => void sentAt.push(Date.now()) });
    const worker = await createRampflowWorker({
      connection: workerConnection,
      namespace: 'default',
      taskQueue,
      ramp,
      dataConverter: dataConverterFromEnv(),
      workflowBundle: { codePath: inject('workflowBundlePath') },
      shutdownGraceTime: '2 seconds',
      depositTimings: FAST_DEPOSIT_TIMINGS,
      // The first refusal of a create parks its journey: the cheap way to park thousands.
      refusedCreateParkAfterMs: 0,
      maxCallsPerSecond: N,
      identity: `rate-limit-worker-${index}`,
    });
    workers.push({ worker, done: worker.run(), connection: workerConnection, ramp });
  }
}, 180_000);

afterAll(async () => {
  for (const { worker, done, connection: workerConnection, ramp } of workers) {
    worker.shutdown();
    await done.catch(() => undefined);
    await workerConnection.close();
    await ramp.close();
  }
  await connection?.close();
  await service?.close();
  await temporal?.close();
});

describe('a bulk retry of thousands of parked journeys', () => {
  it('never sends the service more than N calls in any second, and every journey resumes', async () => {
    // Park them: every create is refused once (422 FAILED), which parks the journey as Refused.
    await service.control.injectFault({ path: '/customer/create', kind: 'REFUSED', count: JOURNEYS });
    const externalIds = Array.from({ length: JOURNEYS }, (_, index) => `bulk-${index}-${randomUUID()}`);
    await inBatches(externalIds, 50, (externalId) =>
      client.workflow.start('customerJourney', {
        taskQueue,
        workflowId: journeyWorkflowId(externalId),
        args: [JourneyInputSchema.parse({ customer: { externalId, realName: 'Ada Lovelace', email: 'ada@example.com' }, timings: QUIET_TIMINGS })],
      }),
    );
    const count = (query: string) => client.workflow.count(`${query} AND TaskQueue = '${taskQueue}'`).then((answer) => answer.count);
    await until('every journey to park', async () => ((await count(`RampStage = 'NEEDS_ATTENTION'`)) === JOURNEYS ? true : undefined), { timeoutMs: 300_000, intervalMs: 1_000 });

    // The service now answers 429 above N calls a second; the whole backlog is retried at once.
    await service.control.limitRate({ callsPerSecond: N, retryAfterSeconds: 1 });
    const from = Date.now();
    const rampflow = new RampflowClient(client, taskQueue);
    const report = await rampflow.retryAllJourneys({}, { concurrency: 32 });
    expect(report).toMatchObject({ listed: JOURNEYS, done: JOURNEYS, failed: 0, refused: 0 });
    await until('every journey to have its customer created', async () => ((await count(`RampStage = 'AWAITING_KYC'`)) === JOURNEYS ? true : undefined), { timeoutMs: 480_000, intervalMs: 1_000 });
    const seconds = (Date.now() - from) / 1_000;

    const calls = requests.filter((line) => line.receivedAt >= from && !line.path.startsWith('/sandbox/'));
    const most = maxPerSlidingSecond(calls.map((line) => line.receivedAt));
    const refused = calls.filter((line) => line.outcome === 'RATE_LIMITED').length;
    // Each worker's own attempts, as they left it: what its share held it to.
    const perWorker = sent.map((times) => maxPerSlidingSecond(times.filter((at) => at >= from)));
    const measured = { journeys: JOURNEYS, n: N, workers: WORKERS, calls: calls.length, refusedWith429: refused, maxCallsInAnySecond: most, maxSentInAnySecondPerWorker: perWorker, seconds: Math.round(seconds) };
    if (process.env.RATE_LIMIT_REPORT) writeFileSync(process.env.RATE_LIMIT_REPORT, JSON.stringify({ ...measured, from, calls: process.env.RATE_LIMIT_REPORT_CALLS ? calls : calls.length }));
    expect(most, JSON.stringify(measured)).toBeLessThanOrEqual(N);
    expect(refused, JSON.stringify(measured)).toBe(0);
    // Every create was sent (lookup and create per journey, then one look at the customer).
    expect(calls.filter((line) => line.path === '/customer/create' && line.outcome === 'SUCCESS')).toHaveLength(JOURNEYS);
  });
});
