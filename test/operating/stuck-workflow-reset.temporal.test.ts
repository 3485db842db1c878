/**
 * A workflow stuck on a nondeterminism, freed as its runbook says (docs/runbooks/RampflowWorkflowTaskFailures.md):
 * on the real dev server against the sandbox, with the real CLI. A journey starts on v0.8.0's
 * workflow bundle while the service refuses to create its customer; the worker is then replaced by
 * one running the current code on the same task queue, which cannot replay the 0.8 history, so every
 * workflow task fails, as a journey's did in the chaos run (docs/guarantees/chaos.md). The reset is
 * refused while the create is in flight, then starts the run again in the current code's shape, and
 * the service ends up with one customer for the journey.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../dev/ports';
import { lastReleaseOf, latestReleaseBundle } from '../../dev/replay-corpus';
import { handOverSignal } from '../../workflows/common/messages';
import { type JourneyHarness, startJourneyHarness } from '../support/journey-harness';
import { expectNondeterminism } from '../support/quiet-temporal-runtime';
import { PROJECT_ROOT, runRampflow } from '../support/run';
import { temporalAddress } from '../support/temporal';
import { until as waitUntil } from '../support/until';
import { startWorkerProcess, testWorkerEnv, type WorkerProcess } from '../support/worker-process';

const RUNBOOK = 'docs/runbooks/RampflowWorkflowTaskFailures.md';
const CREATE_CUSTOMER = '/customer/create';

const until = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> =>
  waitUntil(what, probe, timeoutMs, 250);

let h: JourneyHarness;
let currentCode: WorkerProcess | undefined;

beforeAll(async () => {
  const release = lastReleaseOf(0);
  if (release === undefined) throw new Error('no 0.x release under test/fixtures/releases');
  h = await startJourneyHarness({}, { workflowBundlePath: latestReleaseBundle(release).codePath });
}, 180_000);

afterAll(async () => {
  currentCode?.child.kill('SIGTERM');
  await currentCode?.exited;
  await h?.close();
});

/** Runs `command` as the runbook gives it, with its example id replaced by the journey's. */
async function asDocumented(command: string, externalId: string) {
  expect(readFileSync(join(PROJECT_ROOT, RUNBOOK), 'utf8'), `${RUNBOOK} gives \`${command}\``).toContain(command);
  const words = command.replace(/^npx /, '').replaceAll('user-42', externalId).split(/\s+/);
  return runRampflow(words.slice(1), {
    env: { ...process.env, TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_TASK_QUEUE: h.taskQueue },
  });
}

describe('a journey stuck on a nondeterminism', () => {
  it('is reset as its runbook says: refused while its create is in flight, then run again in the current shape, creating nothing twice', async () => {
    expectNondeterminism();
    const externalId = `user-${randomUUID()}`;
    const handle = await (async () => {
      await h.control.injectFault({ path: CREATE_CUSTOMER, kind: 'REFUSED', count: 1_000 });
      return h.startJourney({ customer: { externalId } });
    })();
    const pendingActivities = async () => (await handle.describe()).raw.pendingActivities ?? [];
    await until('the old code to retry creating the customer', async () =>
      (await pendingActivities()).some((a) => a.activityType?.name === 'ensureCustomer' && (a.attempt ?? 0) >= 2)
        ? true
        : undefined,
    );

    // The current code, in the worker process operators run, takes over the queue and cannot replay
    // the 0.8 history: every task fails.
    await h.stopWorker();
    const metricsPort = await freePort();
    currentCode = startWorkerProcess(testWorkerEnv({ taskQueue: h.taskQueue, sandboxUrl: h.sandbox.url, metricsPort }));
    await handle.signal(handOverSignal, { taskQueue: '' });
    const firstRunId = (await handle.describe()).runId;
    await until('a workflow task to fail for nondeterminism', async () =>
      (await handle.fetchHistory()).events?.some(
        (event) => event.workflowTaskFailedEventAttributes?.failure?.message?.includes('Nondeterminism') === true,
      )
        ? true
        : undefined,
    );

    // What the runbook says to look at: the worker's log line naming the run, and the alert's metric.
    const logged = await until('the worker to log the failing task', async () =>
      currentCode!
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg?: string; runId?: string; failure?: string })
        .find((line) => line.msg === 'Failing workflow task'),
    );
    expect(logged.runId).toBe(firstRunId);
    expect(logged.failure).toContain('Nondeterminism error');
    const failedTasks = await until('the failed tasks to be counted', async () => {
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      const counted =
        /^temporal_workflow_task_execution_failed\{[^}]*workflow_type="customerJourney"[^}]*\} (\d+)/m.exec(metrics);
      return counted ? Number(counted[1]) : undefined;
    });
    expect(failedTasks).toBeGreaterThan(0);

    // Refused while the create is in flight: a reset would forget a request the service may hold.
    const refused = await asDocumented('npx rampflow journey reset user-42', externalId);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /reset refused by journey .*: it has activities in flight: ensureCustomer \(attempt \d+\)/,
    );
    expect((await handle.describe()).runId).toBe(firstRunId);

    // The service comes back; the create lands and the activity ends, and the tasks still fail.
    await h.control.injectFault({ path: CREATE_CUSTOMER, kind: 'REFUSED', count: 0 });
    await until('no activity in flight', async () => ((await pendingActivities()).length === 0 ? true : undefined));

    const dryRun = await asDocumented('npx rampflow journey reset user-42 --dry-run', externalId);
    expect(dryRun.stderr).toBe('');
    expect(dryRun.stdout).toBe(
      `dry run: would reset journey ${externalId}: its run ${firstRunId} fails its workflow task (NON_DETERMINISTIC_ERROR); ` +
        'a new run would start again after event 4 (its first workflow task); nothing was changed\n',
    );
    expect((await handle.describe()).runId).toBe(firstRunId);

    const reset = await asDocumented('npx rampflow journey reset user-42', externalId);
    expect(reset.stderr).toBe('');
    expect(reset.code).toBe(0);
    const newRunId = /new run (\S+) starts again after event 4/.exec(reset.stdout)?.[1];
    expect(newRunId, reset.stdout).toBeDefined();
    expect(newRunId).not.toBe(firstRunId);

    // The new run, in the current code's shape, finds the customer the old one created.
    const kyc = await h.waitForJourney(
      h.client.workflow.getHandle(handle.workflowId),
      (s) => s.stage === 'AWAITING_KYC',
    );
    const customers = [];
    for await (const customer of h.ramp.customers.iterate({}))
      if (customer.externalId === externalId) customers.push(customer.id);
    expect(customers).toEqual([kyc.customer.id]);
    expect((await handle.describe()).runId).toBe(newRunId);

    // A journey whose tasks complete is not reset.
    const healthy = await asDocumented('npx rampflow journey reset user-42', externalId);
    expect(healthy.code).toBe(1);
    expect(healthy.stderr).toContain('its last workflow task did not fail: there is nothing to reset');
    expect((await handle.describe()).runId).toBe(newRunId);
  }, 300_000);
});

describe('reset, for deposits and payouts', () => {
  it('names one that does not exist, in one line', async () => {
    const env = { ...process.env, TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_TASK_QUEUE: h.taskQueue };
    const deposit = await runRampflow(['deposit', 'reset', 'dep-none'], { env });
    expect({ code: deposit.code, stderr: deposit.stderr }).toEqual({
      code: 1,
      stderr: 'rampflow: deposit dep-none not found\n',
    });
    const payout = await runRampflow(['payout', 'reset', 'ref-none', '--dry-run'], { env });
    expect({ code: payout.code, stderr: payout.stderr }).toEqual({
      code: 1,
      stderr: 'rampflow: payout ref-none not found\n',
    });
  });
});
