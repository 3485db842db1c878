/**
 * RAMP_MAX_CALLS_PER_SECOND holds for the whole partner whatever the number of workers, and comes
 * down when the service allows fewer (workers/partner-rate.ts, docs/deploying/rate-limits.md).
 *
 * Real `rampflow worker` processes, all given the same RAMP_MAX_CALLS_PER_SECOND and nothing else
 * (as an autoscaler would add them), start signups against the sandbox; what the service saw is read
 * from the sandbox's own request log (one line per request, with when it arrived):
 * - the bound: with 1, then 3 workers, no sliding second with more than N calls arriving;
 * - the adaptation: against a service that answers 429 (Retry-After: 2) above N / 2 calls a second,
 *   refused calls counting towards it, 3 workers keep the refused calls under a tenth of all.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { journeyWorkflowId } from '../../workflows/common/messages';
import { JourneyInputSchema } from '../../workflows/schemas';
import { startTestSandbox, type TestSandbox } from '../support/sandbox';
import { connectClient, uniqueTaskQueue } from '../support/temporal';
import { until } from '../support/until';
import { startWorkerProcess, testWorkerEnv, type WorkerProcess } from '../support/worker-process';

/** Every worker's RAMP_MAX_CALLS_PER_SECOND. */
const N = 6;
/** Signups per case: three calls each (look the customer up, create it, read it back). */
const SIGNUPS = 30;
/** Journeys that make no call after their customer exists within the case. */
const QUIET_TIMINGS = {
  pollIntervalSeconds: 3_600,
  pollBackoffCapSeconds: 3_600,
  kycDeadlineSeconds: 86_400,
  accountsDeadlineSeconds: 86_400,
};

interface RequestLine {
  path: string;
  statusCode: number;
  receivedAt: number;
}

/** The most calls that arrived within any one second (sliding over arrival times). */
function busiestSecond(lines: RequestLine[]): number {
  const sorted = lines.map((line) => line.receivedAt).sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; last < sorted.length; last++) {
    while (sorted[last]! - sorted[first]! >= 1_000) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

let connection: { client: Client; close: () => Promise<void> };
const running: WorkerProcess[] = [];

beforeAll(async () => {
  connection = await connectClient();
});
afterAll(async () => {
  await Promise.all(
    running.map(async (worker) => {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }),
  );
  await connection?.close();
});

/**
 * Starts `workers` worker processes on a queue of the case's own and SIGNUPS journeys, waits until
 * the service created every customer, stops the workers, and returns the service's requests.
 */
async function signUpWith(workers: number, service: TestSandbox, requests: RequestLine[]): Promise<RequestLine[]> {
  const taskQueue = uniqueTaskQueue('partner-rate');
  const processes = Array.from({ length: workers }, () =>
    startWorkerProcess({
      ...testWorkerEnv({ taskQueue, sandboxUrl: service.sandbox.url, metricsPort: 0, logLevel: 'warn' }),
      RAMP_MAX_CALLS_PER_SECOND: String(N),
    }),
  );
  running.push(...processes);
  const prefix = `rate-${randomUUID()}-`;
  await Promise.all(
    Array.from({ length: SIGNUPS }, (_, index) =>
      connection.client.workflow.start('customerJourney', {
        taskQueue,
        workflowId: journeyWorkflowId(`${prefix}${index}`),
        args: [
          JourneyInputSchema.parse({
            customer: { externalId: `${prefix}${index}`, realName: 'Ada Lovelace', email: 'ada@example.com' },
            timings: QUIET_TIMINGS,
          }),
        ],
      }),
    ),
  );
  const created = () => requests.filter((line) => line.path === '/customer/create' && line.statusCode === 200).length;
  await until("every signup's customer created", async () => (created() >= SIGNUPS ? true : undefined), 300_000, 500);
  await Promise.all(
    processes.map(async (worker) => {
      worker.child.kill('SIGTERM');
      const code = await worker.exited;
      if (code !== 0) throw new Error(`a worker exited with ${code}:\n${worker.output()}`);
    }),
  );
  running.splice(0, running.length);
  return requests.filter((line) => !line.path.startsWith('/sandbox/'));
}

/** A sandbox whose request log is kept; `allowed`: its 429 limit (refused calls counting), none when undefined. */
async function serviceWithLog(allowed?: number): Promise<{ service: TestSandbox; requests: RequestLine[] }> {
  const requests: RequestLine[] = [];
  const logger = pino(
    { level: 'info' },
    {
      write: (text: string) =>
        void (JSON.parse(text).msg === 'request' && requests.push(JSON.parse(text) as RequestLine)),
    },
  );
  const service = await startTestSandbox({
    logger,
    ...(allowed === undefined ? {} : { rateLimit: { callsPerSecond: allowed, retryAfterSeconds: 2 } }),
  });
  return { service, requests };
}

describe('RAMP_MAX_CALLS_PER_SECOND across worker processes', () => {
  for (const workers of [1, 3]) {
    it(`holds for the partner with ${workers} worker process(es)`, async () => {
      const { service, requests } = await serviceWithLog();
      try {
        const calls = await signUpWith(workers, service, requests);
        expect(calls.length).toBeGreaterThanOrEqual(SIGNUPS * 2);
        expect(busiestSecond(calls)).toBeLessThanOrEqual(N);
      } finally {
        await service.close();
      }
    }, 360_000);
  }

  it('comes down to what the service allows, so few calls are refused', async () => {
    const allowed = N / 2;
    const { service, requests } = await serviceWithLog(allowed);
    try {
      const calls = await signUpWith(3, service, requests);
      const refused = calls.filter((line) => line.statusCode === 429).length;
      expect(refused / calls.length).toBeLessThan(0.1);
    } finally {
      await service.close();
    }
  }, 360_000);
});
