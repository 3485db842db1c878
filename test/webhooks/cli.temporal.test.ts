/**
 * `rampflow webhooks register` and `rampflow webhooks serve` as a user runs them: child processes,
 * configured by the environment, against the sandbox and the run's dev server.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../dev/ports';
import { EVENT_NAMES } from '../../ramp/events';
import { RECONCILE_SCHEDULE_ID } from '../../webhooks/reconcile-schedule';
import { PROJECT_ROOT, runRampflow } from '../support/run';
import { startTestSandbox, TEST_PARTNER, type TestSandbox } from '../support/sandbox';
import { connectClient, temporalAddress, uniqueTaskQueue } from '../support/temporal';
import { eventually, TEST_TOKEN, workflowExists } from './support/receiver';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

const rampEnv = (baseUrl: string) => ({
  ...process.env,
  RAMP_BASE_URL: baseUrl,
  RAMP_API_KEY: TEST_PARTNER.apiKey,
  RAMP_API_SECRET: TEST_PARTNER.apiSecret,
});

describe('rampflow webhooks register', () => {
  it('registers the callback URL and subscribes to every new-format event, never printing the token', async () => {
    await sandbox.ramp.subscribedEvents.set(['user.approved']);
    const url = `http://127.0.0.1:8788/webhooks/ramp/${TEST_TOKEN}`;
    const result = await runRampflow(['webhooks', 'register', '--url', url], {
      env: { ...rampEnv(sandbox.sandbox.url), WEBHOOK_TOKEN: TEST_TOKEN },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('callback URL registered: http://127.0.0.1:8788/webhooks/ramp/***');
    expect(result.stdout + result.stderr).not.toContain(TEST_TOKEN);
    expect((await sandbox.ramp.subscribedEvents.get()).events).toEqual([...EVENT_NAMES]);
  });

  it('refuses a plain-http URL for a real service, and a path without WEBHOOK_TOKEN', async () => {
    const http = await runRampflow(
      ['webhooks', 'register', '--url', `http://hooks.example.com/webhooks/ramp/${TEST_TOKEN}`],
      { env: rampEnv('https://ramp.example.com') },
    );
    expect(http.code).toBe(1);
    expect(http.stderr).toMatch(/refusing a http:\/\/ callback URL/);
    const wrongPath = await runRampflow(['webhooks', 'register', '--url', 'http://127.0.0.1:8788/hooks'], {
      env: { ...rampEnv(sandbox.sandbox.url), WEBHOOK_TOKEN: TEST_TOKEN },
    });
    expect(wrongPath.code).toBe(1);
    expect(wrongPath.stderr).toMatch(/must be \/webhooks\/ramp\/<WEBHOOK_TOKEN>/);
    expect(wrongPath.stderr).not.toContain(TEST_TOKEN);
  });
});

describe('rampflow webhooks serve', () => {
  it('fails with one clear line per bad variable', async () => {
    const result = await runRampflow(['webhooks', 'serve'], {
      env: { ...process.env, WEBHOOK_TOKEN: 'short', WEBHOOK_ALLOWED_IPS: '', TEMPORAL_ADDRESS: temporalAddress() },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/WEBHOOK_TOKEN: must be at least 16 characters/);
    expect(result.stderr).not.toContain('short');
  });

  it('serves deliveries, creates the reconciliation schedule, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const taskQueue = uniqueTaskQueue('cli-serve');
    const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'rampflow.cjs'), 'webhooks', 'serve'], {
      cwd: PROJECT_ROOT,
      env: {
        ...process.env,
        WEBHOOK_PORT: String(port),
        WEBHOOK_TOKEN: TEST_TOKEN,
        TEMPORAL_ADDRESS: temporalAddress(),
        TEMPORAL_TASK_QUEUE: taskQueue,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    const { client, close } = await connectClient();
    try {
      const base = `http://127.0.0.1:${port}`;
      await eventually(
        () =>
          fetch(`${base}/healthz`).then(
            (response) => response.status,
            () => 0,
          ),
        (status) => status === 200,
        'the receiver listening',
      );
      const id = randomUUID();
      const response = await fetch(`${base}/webhooks/ramp/${TEST_TOKEN}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ event: 'DEPOSIT_RECEIVED', payload: { id } }),
      });
      expect(response.status).toBe(200);
      // A payload without its resource's shape goes to a ramp-event workflow.
      expect(await workflowExists(client, `event/DEPOSIT_RECEIVED/${id}`)).toBe(true);
      await eventually(
        () => Promise.resolve(output),
        (text) => text.includes('reconciliation schedule in place'),
        'the schedule ensured',
      );
      const schedule = await client.schedule.getHandle(RECONCILE_SCHEDULE_ID).describe();
      expect(schedule.action).toMatchObject({ workflowType: 'reconcileWithService', taskQueue });

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(output).toContain('webhook receiver stopped');
      expect(output).not.toContain(TEST_TOKEN);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await client.schedule
        .getHandle(RECONCILE_SCHEDULE_ID)
        .delete()
        .catch(() => undefined);
      await close();
    }
  });
});
