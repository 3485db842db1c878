/**
 * Timings that can be retuned (workflows/common/timings.ts), on the real dev server: a journey started
 * with no timings on the current code moves to a release that retunes the polls, and waits by the new
 * defaults from the retune's patch on; a starter's explicit overrides win over the retune and are all
 * that continue-as-new carries.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { bundleWorkflowCode } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuildWorker, QUIET_BUNDLER, startBuildWorker } from '../support/builds';
import { WORKFLOW_BUNDLE_PATHS } from '../../workers/worker';
import { customerEventSignal, journeyWorkflowId } from '../../workflows/common/messages';
import { JourneyInputSchema, type JourneyRequest } from '../../workflows/schemas';
import { JOURNEY_TIMING_DEFAULTS } from '../../workflows/common/timings';
import type { customerJourney } from '../../workflows';
import { type JourneyHarness, registerTestExits, startJourneyHarness, TEST_OFFRAMP } from '../support/journey-harness';

/** What test/support/workflows/retuned-timings.ts retunes: polls every 2 s, no backoff, history limit 150. */
const RETUNE = 'test-retune-journey-polls-2s';

let h: JourneyHarness;
let retunedCodePath: string;
let workerB: BuildWorker | undefined;

beforeAll(async () => {
  const { code } = await bundleWorkflowCode({
    ...WORKFLOW_BUNDLE_PATHS,
    workflowsPath: join(__dirname, '..', 'support', 'workflows', 'retuned-timings.ts'),
    logger: QUIET_BUNDLER,
  });
  retunedCodePath = join(mkdtempSync(join(tmpdir(), 'rampflow-retuned-')), 'workflow-bundle.js');
  writeFileSync(retunedCodePath, code);
  // Build A: the current code.
  h = await startJourneyHarness({});
}, 180_000);

afterAll(async () => {
  await workerB?.stop();
  await h?.close();
});

/** Build B, the retuning release, in place of A's worker on the same task queue. */
async function deployRetunedRelease(): Promise<void> {
  await h.stopWorker();
  workerB = await startBuildWorker(h, retunedCodePath);
}

/** Starts a journey with exactly this input's timings (the harness would add its fast ones). */
async function startJourney(timings: JourneyRequest['timings']): Promise<WorkflowHandle<typeof customerJourney>> {
  const externalId = `user-${randomUUID()}`;
  const input = JourneyInputSchema.parse({
    customer: { externalId, realName: 'Ada Lovelace', email: 'ada@example.com' },
    offramp: TEST_OFFRAMP,
    ...(timings ? { timings } : {}),
  });
  return h.client.workflow.start<typeof customerJourney>('customerJourney', {
    taskQueue: h.taskQueue,
    workflowId: journeyWorkflowId(externalId),
    args: [input],
  });
}

/** The durations of the timers the run started, in seconds, in order. */
async function timerSeconds(handle: WorkflowHandle): Promise<number[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const timeout = event.timerStartedEventAttributes?.startToFireTimeout;
    return timeout ? [Number(timeout.seconds ?? 0) + (timeout.nanos ?? 0) / 1e9] : [];
  });
}

/** The details of the patch markers in the run's history, as text (sdk-core writes them, unencrypted). */
async function patchesMarked(handle: WorkflowHandle): Promise<string> {
  const history = await handle.fetchHistory();
  return (history.events ?? [])
    .filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_patch')
    .flatMap((event) =>
      Object.values(event.markerRecordedEventAttributes?.details ?? {}).flatMap((details) =>
        (details.payloads ?? []).map((payload) => Buffer.from(payload.data ?? []).toString()),
      ),
    )
    .join('\n');
}

/** The input a run of the journey started with. */
async function runInput(handle: WorkflowHandle): Promise<{ timings?: Record<string, number> }> {
  const history = await handle.fetchHistory();
  return decodeFromPayloadsAtIndex(
    h.client.options.loadedDataConverter,
    0,
    history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads,
  );
}

describe('timings resolved in workflow code', () => {
  it("moves running journeys to retuned defaults from the retune on, and keeps a starter's overrides through continue-as-new", async () => {
    // On A: a journey started with no timings.
    const bare = await startJourney(undefined);
    expect((await runInput(bare)).timings).toBeUndefined();
    const kyc = await Promise.all([bare].map((handle) => h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC')));
    // It waits for KYC by A's defaults: the first poll in 15 minutes.
    for (const handle of [bare]) {
      await expect
        .poll(() => timerSeconds(handle), { timeout: 10_000 })
        .toEqual([JOURNEY_TIMING_DEFAULTS.pollIntervalSeconds]);
    }

    await deployRetunedRelease();

    // The customers pass KYC (the event, as the receiver would route it); the partner registers their
    // exits only once the journeys wait for them, so only a poll can find them: by the retuned
    // default, within seconds (A's default would look after 15 minutes).
    for (const [index, handle] of [bare].entries()) {
      const customerId = kyc[index]!.customer.id!;
      await h.control.approveCustomer(customerId);
      await handle.signal(customerEventSignal, {
        key: `CUSTOMER_APPROVED/${customerId}`,
        event: 'CUSTOMER_APPROVED',
        record: { id: customerId, status: 'APPROVED' },
      });
    }
    for (const [index, handle] of [bare].entries()) {
      await h.waitForJourney(handle, (s) => s.stage === 'SETTING_UP_RAMPS' && s.waitingFor.includes('register'));
      await registerTestExits(h.control, kyc[index]!.customer.id!);
      const accounts = await h.waitForJourney(
        handle,
        (s) => s.stage === 'AWAITING_ACCOUNTS' && !!s.offramp?.depositAddress,
        30_000,
      );
      await h.control.approveDepositAddress(accounts.offramp!.depositAddress!.id);
      await h.waitForJourney(handle, (s) => s.stage === 'ACTIVE', 30_000);
      const timers = await timerSeconds(handle);
      expect(timers[0]).toBe(JOURNEY_TIMING_DEFAULTS.pollIntervalSeconds);
      expect(timers.length).toBeGreaterThan(1);
      expect(timers.slice(1).every((seconds) => seconds === 2)).toBe(true);
      // Only the retune's patch was needed.
      expect(await patchesMarked(handle)).toContain(RETUNE);
    }

    // On B, a starter's overrides win over the retune and are what the next run is given.
    const overrides = { pollIntervalSeconds: 1, pollBackoffCapSeconds: 1, maxHistoryEvents: 100 };
    const overridden = await startJourney(overrides);
    const firstRunId = (await overridden.describe()).runId;
    await expect
      .poll(async () => (await overridden.describe()).runId, { timeout: 60_000, interval: 500 })
      .not.toBe(firstRunId);
    const nextRun = h.client.workflow.getHandle(overridden.workflowId);
    expect((await runInput(nextRun)).timings).toEqual(overrides);
    // ... and the next run still polls every second (the retune would make it 2 s), and continues as new at 100 events.
    await expect.poll(async () => (await timerSeconds(nextRun)).length, { timeout: 20_000 }).toBeGreaterThan(2);
    expect(new Set(await timerSeconds(nextRun))).toEqual(new Set([1]));
    await overridden.terminate('timings test over');
    await bare.terminate('timings test over');
  }, 240_000);
});
