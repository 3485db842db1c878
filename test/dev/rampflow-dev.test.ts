/**
 * `rampflow dev` (`npm start`) as a user runs it: a child process with its own dev server, sandbox,
 * worker and receiver on free ports.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Connection } from '@temporalio/client';
import { freePortBelow } from '../../dev/ports';
import { DEV_PARTNER_API_TOKEN } from '../../dev/stack';
import { endpointsVariable, generateEndpointSecret, localEndpointConfig } from '../../partner-events/local-endpoint';
import type { StatusSnapshot } from '../../client/status';
import { DEFAULT_RECONCILE_INTERVAL_SECONDS, RECONCILE_SCHEDULE_ID } from '../../webhooks/reconcile-schedule';
import { PROJECT_ROOT, runRampflow } from '../support/run';
import { until } from '../support/until';

const failedLines = (output: string): string[] =>
  output.split('\n').filter((line) => line.includes('partner event delivery failed'));

function isListening(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

/**
 * A port for `rampflow dev` to listen on, chosen below Linux's ephemeral range (32768 and up). Seven
 * ports are chosen before the stack binds them one by one; a port from the ephemeral range could be
 * taken meanwhile as the source port of any outgoing connection on this busy machine, or by a random
 * port the Temporal dev server picks for itself, and the stack would fail with EADDRINUSE.
 */
async function freeListenPorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePortBelow(32_768));
  return [...ports];
}

async function startDev(extra: string[], env: NodeJS.ProcessEnv = {}) {
  const [port, uiPort, sandboxPort, webhookPort, partnerApiPort, codecPort, partnerEventsPort] = (await freeListenPorts(
    7,
  )) as [number, number, number, number, number, number, number];
  const ports = { port, uiPort, sandboxPort, webhookPort, partnerApiPort, codecPort, partnerEventsPort };
  const dbFile = join(mkdtempSync(join(tmpdir(), 'rampflow-dev-')), 'temporal.db');
  const args = [
    join(PROJECT_ROOT, 'bin', 'rampflow.cjs'),
    'dev',
    '--port',
    String(ports.port),
    '--ui-port',
    String(ports.uiPort),
    '--sandbox-port',
    String(ports.sandboxPort),
    '--webhook-port',
    String(ports.webhookPort),
    '--partner-api-port',
    String(ports.partnerApiPort),
    '--codec-port',
    String(ports.codecPort),
    '--partner-events-port',
    String(ports.partnerEventsPort),
    '--db-file',
    dbFile,
    ...extra,
  ];
  // No worker metrics unless a case asks for them: 9464 may be another stack's on this machine.
  const child = spawn(process.execPath, args, {
    cwd: PROJECT_ROOT,
    env: { ...process.env, WORKER_METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((done) => child.on('close', done));
  const outputContains = (text: string, timeoutMs: number) =>
    new Promise<void>((ready, fail) => {
      const timer = setTimeout(() => fail(new Error(`no "${text}" in time:\n${output}`)), timeoutMs);
      const check = () => {
        if (!output.includes(text)) return;
        clearTimeout(timer);
        ready();
      };
      child.stdout.on('data', check);
      check();
    });
  return { child, ports, dbFile, exited, output: () => output, outputContains };
}

describe('rampflow dev (npm start)', () => {
  it('--once: brings the stack up in order and carries the demo customer to both payouts, then exits 0', async () => {
    const dev = await startDev(['--once', '--timeout', '150']);
    expect(await dev.exited, dev.output()).toBe(0);
    const lines = dev.output().split('\n');
    // The journey registers the customer's accounts itself: nobody calls /sandbox/...-create.
    const order = [
      '0/5 codec server',
      '1/5 Temporal dev server',
      '2/5 sandbox on autopilot',
      '3/5 worker',
      '4/5 webhook receiver',
      `reconciliation schedule ${RECONCILE_SCHEDULE_ID} created`,
      '5/5 partner API',
      'demo journey customer/demo-',
      "journey: registered the customer's wallet",
      'journey ACTIVE',
      'done: ',
    ];
    const at = order.map((text) => lines.findIndex((line) => line.includes(text)));
    expect(
      at.every((index) => index >= 0),
      dev.output(),
    ).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(dev.output()).toContain(`Web UI http://127.0.0.1:${dev.ports.uiPort}`);
    expect(dev.output()).toContain(
      `partner events go to the local endpoint http://127.0.0.1:${dev.ports.partnerEventsPort}/`,
    );
    // The partner's endpoint printed what a partner's backend hears, in order, verified.
    const heard = lines
      .filter((line) => line.includes('partner event '))
      .map((line) => /(journey|deposit|payout)\.[a-z_]+/.exec(line)?.[0]);
    expect(heard.slice(0, 4), dev.output()).toEqual([
      'journey.kyc_required',
      'journey.approved',
      'journey.accounts_ready',
      'journey.active',
    ]);
    expect(
      heard.filter((type) => type === 'deposit.completed'),
      dev.output(),
    ).toHaveLength(2);
    // A versioned worker, made current, as `temporal worker deployment describe --name rampflow` shows.
    expect(dev.output()).toMatch(/worker is polling as version rampflow:[0-9a-f]{20} \(current;/);
    expect(dev.output()).toMatch(/deposit \w+ \(ONRAMP, 100\.00 AUD\): COMPLETED/);
    expect(dev.output()).toMatch(/deposit \w+ \(OFFRAMP, 50\.0+ USDT\): COMPLETED/);
    for (const port of Object.values(dev.ports)) expect(await isListening(port)).toBe(false);
    // Its partner event log is its own, beside its history: another stack (another test) never shares it.
    const log = readFileSync(join(dirname(dev.dbFile), 'partner-events', 'events.jsonl'), 'utf8');
    expect(log.trim().split('\n').length).toBeGreaterThanOrEqual(heard.length);
    // What its worker delivered to, kept beside its keys for `partner-events endpoints` in another shell.
    const recorded = join(dirname(dev.dbFile), 'partner-event-endpoints.json');
    expect(JSON.parse(readFileSync(recorded, 'utf8'))).toEqual([
      expect.objectContaining({
        name: 'dev',
        url: expect.stringContaining(`http://127.0.0.1:${dev.ports.partnerEventsPort}/`),
      }),
    ]);
    expect(statSync(recorded).mode & 0o777).toBe(0o600);
  }, 180_000);

  it("serves the worker's and the receiver's metrics where the docs say, prints where, and `rampflow status` reads the worker's there", async () => {
    const [metricsPort] = (await freeListenPorts(1)) as [number];
    const dev = await startDev([], { WORKER_METRICS_PORT: String(metricsPort), STAGE_AGE_SCAN_SECONDS: '15' });
    try {
      await dev.outputContains('demo journey customer/demo-', 90_000);
      const workerUrl = `http://127.0.0.1:${metricsPort}/metrics`;
      const receiverUrl = `http://127.0.0.1:${dev.ports.webhookPort}/metrics`;
      expect(dev.output()).toContain(`worker metrics on ${workerUrl}`);
      expect(dev.output()).toContain(`receiver metrics on ${receiverUrl}`);

      // The worker's: the SDK's, rampflow's outage gauge, and its own calls to the service.
      const worker = await until(
        'the worker to count its calls to the service',
        async () => {
          const text = await (await fetch(workerUrl)).text();
          return text.includes('rampflow_service_requests_total{') ? text : undefined;
        },
        60_000,
        500,
      );
      expect(worker).toContain('temporal_workflow_task_schedule_to_start_latency');
      expect(worker).toContain('rampflow_service_outage{');
      // The receiver's: the webhooks' and the stage age scan's, parked payouts included.
      const receiver = await (await fetch(receiverUrl)).text();
      expect(receiver).toContain('rampflow_webhook_requests_total');
      expect(receiver).toMatch(
        /^rampflow_stage_oldest_waiter_seconds\{workflow_type="payout",stage="NEEDS_ATTENTION"\} /m,
      );

      const status = await runRampflow(['status', '--json'], {
        env: {
          ...process.env,
          TEMPORAL_ADDRESS: `127.0.0.1:${dev.ports.port}`,
          TEMPORAL_TASK_QUEUE: 'rampflow',
          WORKER_METRICS_PORT: String(metricsPort),
        },
      });
      expect(status.code, status.stderr).toBe(0);
      expect((JSON.parse(status.stdout) as StatusSnapshot).metrics).toEqual([
        expect.objectContaining({ url: workerUrl, ok: true }),
      ]);
    } finally {
      dev.child.kill('SIGINT');
      expect(await dev.exited, dev.output()).toBe(0);
    }
    expect(await isListening(metricsPort)).toBe(false);
  }, 180_000);

  it('logs a failing partner endpoint one line per attempt, without customer data, and no start-up warning for the service queue', async () => {
    // The partner's endpoint is down: every delivery is answered 503.
    let attempts = 0;
    const endpoint = createServer((request, response) => {
      attempts += 1;
      request.resume();
      response.writeHead(503).end();
    });
    await new Promise<void>((listening) => endpoint.listen(0, '127.0.0.1', listening));
    const url = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/events`;
    const dev = await startDev([], {
      PARTNER_EVENT_ENDPOINTS: endpointsVariable([
        localEndpointConfig(url, generateEndpointSecret(), 'partner-backend'),
      ]),
      PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS: 'true',
      // A minute of retries: the backoff scales down with it, so attempts come every second or so.
      PARTNER_EVENT_RETRY_SECONDS: '60',
    });
    try {
      await until(
        'five failed delivery lines',
        async () => (failedLines(dev.output()).length >= 5 ? true : undefined),
        120_000,
        500,
      );
    } finally {
      dev.child.kill('SIGINT');
      expect(await dev.exited, dev.output()).toBe(0);
      await new Promise((closed) => endpoint.close(closed));
    }
    const lines = dev
      .output()
      .split('\n')
      .filter((line) => line !== '');
    const failed = failedLines(dev.output());
    // One line per attempt of the delivery workflow's activity. The endpoint saw at most two more: the
    // publishing activity's own attempt (it hands a failed stream to the delivery workflow without a
    // line), and an attempt still in flight when the stack stopped.
    expect(attempts - failed.length, dev.output()).toBeGreaterThanOrEqual(0);
    expect(attempts - failed.length, dev.output()).toBeLessThanOrEqual(2);
    for (const line of failed)
      expect(line).toMatch(
        /^\S+ \[WARN\] partner event delivery failed; retried with backoff \{.*endpoint: 'partner-backend'.*reason: 'HTTP 503'.*\}$/,
      );
    // Every line is the stack's progress or one SDK entry: no stack frames, no object spread over lines.
    for (const line of lines)
      expect(line, dev.output()).toMatch(/^(\[rampflow dev\] |\d{4}-\d\d-\d\dT\S+ \[(WARN|ERROR)\] )/);
    // No customer data in any log line (the demo's progress lines name the account it registered).
    const logs = lines.filter((line) => !line.startsWith('[rampflow dev] '));
    for (const secret of ['Ada', 'ada@example.com', '987654321', '12345678', 'whsec_'])
      expect(logs.filter((line) => line.includes(secret))).toEqual([]);
    expect(dev.output()).not.toContain('No workflows registered');
  }, 180_000);

  it('stops everything it started on Ctrl-C, even in the middle of the demo', async () => {
    const dev = await startDev([]);
    await dev.outputContains('demo journey customer/demo-', 60_000);
    const ui = await fetch(`http://127.0.0.1:${dev.ports.uiPort}/`);
    expect(ui.status).toBe(200);
    const journeys = await fetch(`http://127.0.0.1:${dev.ports.partnerApiPort}/journeys/nobody-here`, {
      headers: { authorization: `Bearer ${DEV_PARTNER_API_TOKEN}` },
    });
    expect(journeys.status).toBe(404);
    // The reconciliation schedule runs as production's receiver keeps it (its interval, the worker's queue).
    const connection = await Connection.connect({ address: `127.0.0.1:${dev.ports.port}` });
    try {
      const { schedule } = await connection.workflowService.describeSchedule({
        namespace: 'default',
        scheduleId: RECONCILE_SCHEDULE_ID,
      });
      expect(Number(schedule?.spec?.interval?.[0]?.interval?.seconds)).toBe(DEFAULT_RECONCILE_INTERVAL_SECONDS);
      expect(schedule?.action?.startWorkflow).toMatchObject({
        workflowType: { name: 'reconcileWithService' },
        taskQueue: { name: 'rampflow' },
      });
      expect(schedule?.state?.paused).toBeFalsy();
    } finally {
      await connection.close();
    }

    dev.child.kill('SIGINT');
    expect(await dev.exited, dev.output()).toBe(0);
    expect(dev.output()).toContain('SIGINT: stopping');
    expect(dev.output()).toContain('stopped');
    // The dev server child and every in-process server are gone: nothing listens on their ports.
    for (const port of Object.values(dev.ports)) expect(await isListening(port)).toBe(false);
  }, 120_000);
});
