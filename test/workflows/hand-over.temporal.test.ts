/**
 * The journey's hand-over to a new major version's task queue (docs/deploying/versioning.md, "Major
 * versions"), on the real dev server against the sandbox: two workers of the current code, the
 * harness's on queue A and a second on queue B. Journeys on A are handed over by the client's bulk
 * call; each continues as new on B carrying its stage and its parking, and goes on there with A's
 * worker stopped. A target the journey cannot move to is ignored, and the journey keeps working on A.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RampflowClient, RampflowInputError } from '../../client';
import type { customerJourney } from '../../workflows';
import { handOverSignal, type JourneyState, retryUpdate } from '../../workflows/common/messages';
import { type BuildWorker, startBuildWorker } from '../support/builds';
import {
  type JourneyHarness,
  registerTestExits,
  startJourneyHarness,
  TEST_OFFRAMP,
  TEST_ONRAMP,
} from '../support/journey-harness';
import { until } from '../support/until';

let h: JourneyHarness;
let rampflow: RampflowClient;
let workerB: BuildWorker | undefined;
let queueA: string;
let queueB: string;

beforeAll(async () => {
  h = await startJourneyHarness();
  queueA = h.taskQueue;
  queueB = `${h.taskQueue}-v1`;
  rampflow = new RampflowClient(h.client, queueA);
  workerB = await startBuildWorker(h, inject('workflowBundlePath'), undefined, { taskQueue: queueB });
});
afterAll(async () => {
  await workerB?.stop();
  await h?.close();
});

/** Parks a second after it starts waiting for KYC; its own looks are an hour apart, so it stays parked. */
const PARKS_AT_KYC = { kycDeadlineSeconds: 1, pollIntervalSeconds: 3600 };

type JourneyHandle = WorkflowHandle<typeof customerJourney>;

/** Visibility is eventually consistent: waits until it counts `count` running journeys on `taskQueue`. */
async function runningJourneysOn(taskQueue: string, count: number): Promise<void> {
  const query = `WorkflowType = 'customerJourney' AND ExecutionStatus = 'Running' AND TaskQueue = '${taskQueue}'`;
  await until(
    `${count} running journeys on ${taskQueue}`,
    async () => ((await h.client.workflow.count(query)).count === count ? true : undefined),
    30_000,
  );
}

/** The run `runId` of the journey, once it has ended CONTINUED_AS_NEW. */
async function continuedAsNew(handle: JourneyHandle, runId: string): Promise<void> {
  const run = h.client.workflow.getHandle(handle.workflowId, runId);
  await until(
    `run ${runId} of ${handle.workflowId} to continue as new`,
    async () => ((await run.describe()).status.name === 'CONTINUED_AS_NEW' ? true : undefined),
    60_000,
  );
}

/** The journey's latest run: its id and the task queue it runs on. */
async function latestRun(handle: JourneyHandle): Promise<{ runId: string; taskQueue: string; status: string }> {
  const description = await h.client.workflow.getHandle(handle.workflowId).describe();
  return { runId: description.runId, taskQueue: description.taskQueue, status: description.status.name };
}

describe("a journey's hand-over to another task queue", () => {
  it('ignores a target it cannot move to, and keeps working on its own queue; the client refuses such targets', async () => {
    const handle = await h.startJourney({ onramp: TEST_ONRAMP, offramp: TEST_OFFRAMP });
    const kyc = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC');
    const before = await latestRun(handle);

    for (const taskQueue of ['', 'no spaces allowed', 'q'.repeat(201), queueA, `${queueA}-service`])
      await handle.signal(handOverSignal, { taskQueue });
    await handle.signal(handOverSignal, {} as { taskQueue: string });

    // It goes on: the approval is found by its poll, on A, in the same run.
    await registerTestExits(h.control, kyc.customer.id!);
    await h.control.approveCustomer(kyc.customer.id!);
    await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_ACCOUNTS');
    expect(await latestRun(handle)).toEqual({ ...before, status: 'RUNNING' });
    expect(before.taskQueue).toBe(queueA);

    await expect(rampflow.handOverJourney(kyc.externalId, queueA)).rejects.toThrow(RampflowInputError);
    await expect(rampflow.handOverJourney(kyc.externalId, 'bad queue')).rejects.toThrow(RampflowInputError);
    await expect(rampflow.handOverAllJourneys({ toTaskQueue: '' })).rejects.toThrow(RampflowInputError);
    await expect(rampflow.handOverAllJourneys({ toTaskQueue: `${queueA}-service` })).rejects.toThrow(
      RampflowInputError,
    );
    // Out of the way of the next test's hand-over, which takes every journey running on A.
    await handle.terminate('test over');
  });

  it('continues each journey as new on the target queue with its stage and parking; there a KYC approval takes one to ACTIVE and a retry resumes the parked one', async () => {
    const waiting = await h.startJourney({ onramp: TEST_ONRAMP, offramp: TEST_OFFRAMP });
    const atKyc = await h.waitForJourney(waiting, (s) => s.stage === 'AWAITING_KYC');
    const parkedHandle = await h.startJourney({ onramp: TEST_ONRAMP, offramp: TEST_OFFRAMP, timings: PARKS_AT_KYC });
    const parked = await h.waitForJourney(parkedHandle, (s) => s.stage === 'NEEDS_ATTENTION');
    expect(parked.attention).toMatchObject({ stage: 'AWAITING_KYC', errorType: 'Deadline' });
    const firstRuns = new Map<JourneyHandle, string>();
    for (const handle of [waiting, parkedHandle]) firstRuns.set(handle, (await latestRun(handle)).runId);
    await runningJourneysOn(queueA, 2);

    const report = await rampflow.handOverAllJourneys({ toTaskQueue: queueB }, { concurrency: 2 });
    expect(report).toMatchObject({ listed: 2, done: 2, refused: 0, failed: 0 });

    for (const [handle, runId] of firstRuns) {
      await continuedAsNew(handle, runId);
      const next = await latestRun(handle);
      expect(next.runId).not.toBe(runId);
      expect(next.taskQueue).toBe(queueB);
    }
    await runningJourneysOn(queueA, 0);
    // From here on only B's worker runs anything: what the journeys do next, they do on B.
    await h.stopWorker();

    const sameCustomer = (before: JourneyState) => (s: JourneyState) => s.customer.id === before.customer.id;
    const carriedKyc = await h.waitForJourney(waiting, sameCustomer(atKyc));
    expect(carriedKyc).toMatchObject({ stage: 'AWAITING_KYC', customer: atKyc.customer });
    const carriedPark = await h.waitForJourney(parkedHandle, sameCustomer(parked));
    expect(carriedPark).toMatchObject({ stage: 'NEEDS_ATTENTION', attention: parked.attention });

    // The parked one takes an operator's retry on B, and goes on past KYC.
    await h.control.approveCustomer(parked.customer.id!);
    expect(await parkedHandle.executeUpdate(retryUpdate, { args: [{}] })).toEqual({ resumed: 'AWAITING_KYC' });
    await h.waitForJourney(parkedHandle, (s) => s.stage === 'SETTING_UP_RAMPS' && s.attention === undefined);

    // The waiting one: KYC approved, then its accounts, to ACTIVE on B.
    await registerTestExits(h.control, atKyc.customer.id!);
    await h.control.approveCustomer(atKyc.customer.id!);
    const accounts = await h.waitForJourney(
      waiting,
      (s) => s.stage === 'AWAITING_ACCOUNTS' && !!s.onramp?.virtualAccount && !!s.offramp?.depositAddress,
    );
    await h.control.approveVirtualAccount(accounts.onramp!.virtualAccount!.id);
    await h.control.approveDepositAddress(accounts.offramp!.depositAddress!.id);
    await h.waitForJourney(waiting, (s) => s.stage === 'ACTIVE');
    for (const handle of [waiting, parkedHandle])
      expect(await latestRun(handle)).toMatchObject({ taskQueue: queueB, status: 'RUNNING' });

    for (const handle of [waiting, parkedHandle]) await handle.terminate('test over');
  });
});
