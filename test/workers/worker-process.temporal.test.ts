/**
 * The worker process as operators run it (`rampflow worker`, a child process configured by the
 * environment): killed without warning in the middle of a journey, a new one finishes the journey
 * with nothing created twice; it serves Prometheus metrics and stops gracefully on SIGTERM.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../dev/ports';
import { type JourneyState, journeyStateQuery, journeyWorkflowId } from '../../workflows/common/messages';
import { JourneyInputSchema } from '../../workflows/schemas';
import type { customerJourney } from '../../workflows';
import { FAST_TIMINGS, registerTestExits, TEST_OFFRAMP, TEST_ONRAMP } from '../support/journey-harness';
import { startTestSandbox, type TestSandbox } from '../support/sandbox';
import { connectClient, uniqueTaskQueue } from '../support/temporal';
import { until as waitUntil } from '../support/until';
import { startWorkerProcess, testWorkerEnv } from '../support/worker-process';

/** Waits as long as a worker start may take on a loaded machine. */
const until = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> =>
  waitUntil(what, probe, timeoutMs);

let sandbox: TestSandbox;
let client: Awaited<ReturnType<typeof connectClient>>;
beforeAll(async () => {
  // The service moves on by itself (autopilot), as the real one would while the worker is down.
  sandbox = await startTestSandbox({
    autopilot: {
      kycSubmittedSeconds: 1,
      customerApprovedSeconds: 1,
      virtualAccountVerifiedSeconds: 1,
      depositAddressApprovedSeconds: 1,
    },
    audWhitelistDelaySeconds: 1,
  });
  client = await connectClient();
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});

describe('rampflow worker', () => {
  it('survives being killed mid-journey: a new worker finishes it and nothing is created twice', async () => {
    const taskQueue = uniqueTaskQueue('worker-process');
    const metricsPort = await freePort();
    const env = testWorkerEnv({ taskQueue, sandboxUrl: sandbox.sandbox.url, metricsPort });
    const first = startWorkerProcess(env);
    await until('the first worker to start', async () =>
      first.output().includes('worker started') ? true : undefined,
    );

    const externalId = `killed-${taskQueue}`;
    const handle = await client.client.workflow.start<typeof customerJourney>('customerJourney', {
      taskQueue,
      workflowId: journeyWorkflowId(externalId),
      args: [
        JourneyInputSchema.parse({
          customer: { externalId, realName: 'Ada Lovelace', email: 'ada@example.com' },
          onramp: TEST_ONRAMP,
          offramp: TEST_OFFRAMP,
          timings: FAST_TIMINGS,
        }),
      ],
    });
    const state = (): Promise<JourneyState> => handle.query(journeyStateQuery);

    // The worker dies without warning while the journey waits for KYC.
    const awaitingKyc = await until('AWAITING_KYC', async () =>
      (await state()).stage === 'AWAITING_KYC' ? await state() : undefined,
    );
    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    await registerTestExits(sandbox.control, awaitingKyc.customer.id!);

    const second = startWorkerProcess(env);
    const active = await until('ACTIVE after the restart', async () => {
      const current = await handle.query(journeyStateQuery);
      return current.stage === 'ACTIVE' ? current : undefined;
    });
    expect(active.customer.id).toBe(awaitingKyc.customer.id);

    // One customer, one flow each way.
    let customers = 0;
    for await (const customer of sandbox.ramp.customers.iterate({ pageSize: 100 }))
      if (customer.externalId === externalId) customers += 1;
    expect(customers).toBe(1);
    const flows: string[] = [];
    for await (const flow of sandbox.ramp.autorampFlows.iterate({ pageSize: 100 })) {
      if (flow.from === active.onramp!.virtualAccount!.id || flow.from === active.offramp!.depositAddress!.id)
        flows.push(flow.type);
    }
    expect(flows.sort()).toEqual(['OFFRAMP', 'ONRAMP']);

    // The runtime's Prometheus endpoint counts the work done.
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/temporal_workflow_task_execution_latency/);
    expect(metrics).toMatch(/temporal_activity_execution_latency/);

    // SIGTERM stops the worker gracefully: exit 0 and a last log line.
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(second.output()).toContain('worker stopped');
    await handle.terminate('test over');
  });

  it('refuses to start with a bad environment, naming each bad variable and never a secret', async () => {
    const worker = startWorkerProcess({
      TEMPORAL_ADDRESS: 'nowhere',
      RAMP_BASE_URL: '',
      RAMP_API_KEY: '',
      RAMP_API_SECRET: 'hunter2-secret',
      RAMPFLOW_PAYLOAD_KEYS: 'k1:hunter3-not-a-key',
    });
    expect(await worker.exited).toBe(1);
    expect(worker.output()).toContain('TEMPORAL_ADDRESS: expected host:port');
    expect(worker.output()).toContain('RAMP_BASE_URL: is required');
    expect(worker.output()).toContain('RAMP_API_KEY: is required');
    expect(worker.output()).toContain('RAMPFLOW_PAYLOAD_KEYS: key k1 is not the base64 of 32 bytes');
    expect(worker.output()).not.toContain('hunter2-secret');
    expect(worker.output()).not.toContain('hunter3');
  });

  it('refuses to start with both partner endpoint variables set, which its combined schema once let through', async () => {
    const endpoints = JSON.stringify([
      { name: 'acme', url: 'https://partner.example.com/hooks', secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] },
    ]);
    const file = join(mkdtempSync(join(tmpdir(), 'rampflow-endpoints-')), 'endpoints.json');
    writeFileSync(file, endpoints);
    const worker = startWorkerProcess({
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      RAMP_BASE_URL: 'http://127.0.0.1:1',
      RAMP_API_KEY: 'key',
      RAMP_API_SECRET: 'secret',
      PARTNER_EVENT_ENDPOINTS: endpoints,
      PARTNER_EVENT_ENDPOINTS_FILE: file,
    });
    expect(await worker.exited).toBe(1);
    expect(worker.output()).toContain(
      'PARTNER_EVENT_ENDPOINTS_FILE: set PARTNER_EVENT_ENDPOINTS or PARTNER_EVENT_ENDPOINTS_FILE, not both',
    );
    expect(worker.output()).not.toContain('whsec_');
  });
});
