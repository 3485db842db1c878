/**
 * A deploy while journeys and deposits run, on the real dev server: build A is the previous release
 * of the current major (test/support/builds.ts, `previousBuild`: v1.0.0 today; the current code itself
 * in a major with no release yet), build B the current code. Everything starts on A while A
 * is current; B's worker joins beside A's and becomes current mid-flight. Then the PINNED deposit that
 * started on A finishes on A, a new deposit starts on B, the AUTO_UPGRADE journeys carry on on B, and
 * everything completes: nothing failed, nothing left running, A has nothing pinned to it any more.
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeDeployment, setCurrentVersion } from '../../client/deployment';
import { dataConverterFromEnv } from '../../codec';
import { shownDeposit } from '../../workflows/journey/board';
import { closeCustomerUpdate, depositWorkflowId, type JourneyState } from '../../workflows/common/messages';
import { type BuildWorker, currentBuild, previousBuild, startBuildWorker, taskBuildIds } from '../support/builds';
import {
  type JourneyHarness,
  registerTestExits,
  startActiveJourney,
  startJourneyHarness,
  TEST_AUD_SOURCE,
  TEST_OFFRAMP,
} from '../support/journey-harness';
import { runRampflow } from '../support/run';
import { temporalAddress } from '../support/temporal';
import { until as waitUntil } from '../support/until';

async function versioningOf(handle: WorkflowHandle): Promise<{ behavior?: string | null; buildId?: string | null }> {
  const info = (await handle.describe()).raw.workflowExecutionInfo?.versioningInfo;
  return {
    behavior: info?.behavior == null ? null : String(info.behavior),
    buildId: info?.deploymentVersion?.buildId ?? null,
  };
}

const PINNED = '1'; // temporal.api.enums.v1.VersioningBehavior.VERSIONING_BEHAVIOR_PINNED
const AUTO_UPGRADE = '2';

let h: JourneyHarness;
let workerB: BuildWorker | undefined;
const deploymentName = `upgrade-${randomUUID().slice(0, 8)}`;
let buildA: { codePath: string; buildId: string };
let buildB: { codePath: string; buildId: string };

beforeAll(async () => {
  buildA = previousBuild();
  buildB = await currentBuild(buildA.buildId);
  h = await startJourneyHarness(
    { audWhitelistDelaySeconds: 1 },
    { workflowBundlePath: buildA.codePath, deploymentVersion: { deploymentName, buildId: buildA.buildId } },
  );
  await setCurrentVersion(h.client, { deploymentName, buildId: buildA.buildId });
}, 180_000);

afterAll(async () => {
  await workerB?.stop();
  await h?.close();
});

const stageOf = (state: JourneyState, depositId: string) => shownDeposit(state.deposits, depositId)?.stage;

/** Waits as long as a worker start may take on a loaded machine. */
const until = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> =>
  waitUntil(what, probe, timeoutMs);

describe('deploying new workflow code while journeys and deposits run', () => {
  it('finishes pinned deposits on the old build, starts new ones on the new build and moves journeys to it', async () => {
    expect(buildB.buildId).not.toBe(buildA.buildId);

    // On A: an ACTIVE journey with a deposit waiting for the service, and a journey waiting for KYC.
    const active = await startActiveJourney(h);
    const waiting = await h.startJourney({ offramp: TEST_OFFRAMP });
    const kyc = await h.waitForJourney(waiting, (s) => s.stage === 'AWAITING_KYC');
    const first = await h.control.simulateFiatDeposit({
      virtualAccountId: active.virtualAccountId,
      amount: '40.00',
      currency: 'AUD',
      sender: TEST_AUD_SOURCE,
    });
    await h.reconcile();
    await h.waitForDeposit(first.id, (s) => s.stage === 'RECEIVED');
    const firstDeposit = h.client.workflow.getHandle(depositWorkflowId(first.id));
    expect(await versioningOf(firstDeposit)).toEqual({ behavior: PINNED, buildId: buildA.buildId });
    expect(await versioningOf(active.handle)).toEqual({ behavior: AUTO_UPGRADE, buildId: buildA.buildId });
    // What `rampflow versions` reads from visibility (TemporalWorkerDeploymentVersion and
    // TemporalWorkflowVersioningBehavior, set by the server): A runs both journeys and the pinned deposit.
    const onA = await until('visibility to count the workflows on A', async () => {
      const version = (await describeDeployment(h.client, deploymentName)).versions.find(
        (candidate) => candidate.buildId === buildA.buildId,
      );
      return version && version.pinned === 1 && version.running.customerJourney === 2 ? version : undefined;
    });
    expect(onA).toMatchObject({ status: 'CURRENT', running: { customerJourney: 2, depositLifecycle: 1 }, pinned: 1 });

    // The deploy: B's worker beside A's, then B current.
    workerB = await startBuildWorker(h, buildB.codePath, { deploymentName, buildId: buildB.buildId });
    await setCurrentVersion(h.client, { deploymentName, buildId: buildB.buildId });

    // The deposit that started on A finishes there.
    await h.control.confirmDeposit(first.id);
    await h.control.settleTrade((await h.waitForDeposit(first.id, (s) => s.tradeId !== undefined)).tradeId!);
    expect(await firstDeposit.result()).toMatchObject({ stage: 'COMPLETED' });
    expect(await taskBuildIds(firstDeposit)).toEqual([buildA.buildId]);

    // A deposit found now starts on B.
    const second = await h.control.simulateFiatDeposit({
      virtualAccountId: active.virtualAccountId,
      amount: '60.00',
      currency: 'AUD',
      sender: TEST_AUD_SOURCE,
    });
    await h.reconcile();
    await h.waitForDeposit(second.id, (s) => s.stage === 'RECEIVED');
    const secondDeposit = h.client.workflow.getHandle(depositWorkflowId(second.id));
    await h.control.confirmDeposit(second.id);
    await h.control.settleTrade((await h.waitForDeposit(second.id, (s) => s.tradeId !== undefined)).tradeId!);
    expect(await secondDeposit.result()).toMatchObject({ stage: 'COMPLETED' });
    expect(await taskBuildIds(secondDeposit)).toEqual([buildB.buildId]);
    await h.waitForJourney(
      active.handle,
      (s) => stageOf(s, first.id) === 'COMPLETED' && stageOf(s, second.id) === 'COMPLETED',
    );

    // The journey waiting for KYC carries on to ACTIVE, on B.
    await registerTestExits(h.control, kyc.customer.id!);
    await h.control.approveCustomer(kyc.customer.id!);
    const accounts = await h.waitForJourney(
      waiting,
      (s) => s.stage === 'AWAITING_ACCOUNTS' && !!s.offramp?.depositAddress,
    );
    await h.control.approveDepositAddress(accounts.offramp!.depositAddress!.id);
    await h.waitForJourney(waiting, (s) => s.stage === 'ACTIVE');

    // Both journeys ran on A, then moved to B and stayed there.
    for (const journey of [active.handle, waiting]) {
      expect(await taskBuildIds(journey)).toEqual([buildA.buildId, buildB.buildId]);
      expect(await versioningOf(journey)).toEqual({ behavior: AUTO_UPGRADE, buildId: buildB.buildId });
      await journey.executeUpdate(closeCustomerUpdate, { args: [{ reason: 'upgrade test over' }] });
      expect(await journey.result()).toMatchObject({ stage: 'CLOSED' });
    }

    // Every one of these histories, of runs that moved between builds, replays on B.
    const histories = await Promise.all(
      [active.handle, waiting, firstDeposit, secondDeposit].map(async (handle) => ({
        workflowId: handle.workflowId,
        history: await handle.fetchHistory(),
      })),
    );
    const replayFailures: string[] = [];
    for await (const result of Worker.runReplayHistories(
      {
        workflowBundle: { codePath: buildB.codePath },
        dataConverter: dataConverterFromEnv(),
        replayName: 'upgrade-replay',
      },
      histories,
    )) {
      if (result.error) replayFailures.push(`${result.workflowId}: ${result.error.message}`);
    }
    expect(replayFailures).toEqual([]);

    // Nothing failed and nothing is left running on the task queue (visibility lags a little).
    const statuses = await until('every workflow of the test to be listed as completed', async () => {
      const seen: Record<string, string[]> = {};
      for await (const execution of h.client.workflow.list({ query: `TaskQueue = '${h.taskQueue}'` }))
        (seen[execution.status.name] ??= []).push(execution.workflowId);
      return Object.keys(seen).every((status) => status === 'COMPLETED' || status === 'CONTINUED_AS_NEW')
        ? seen
        : undefined;
    });
    expect(statuses.COMPLETED!.length).toBeGreaterThanOrEqual(6); // 2 journeys, 2 deposits, 2 reconciliation passes

    // What the operator sees: B current, nothing left pinned to A, so A's workers can go.
    const report = await until('A to have nothing pinned', async () => {
      const seen = await describeDeployment(h.client, deploymentName);
      return seen.versions.find((version) => version.buildId === buildA.buildId)?.pinned === 0 ? seen : undefined;
    });
    expect(report.current).toBe(buildB.buildId);
    expect(report.versions.map((version) => version.buildId).sort()).toEqual([buildA.buildId, buildB.buildId].sort());
    const printed = await runRampflow(['versions'], {
      env: { ...process.env, TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_DEPLOYMENT_NAME: deploymentName },
    });
    expect(printed.stderr).toBe('');
    expect(printed.stdout).toContain(`deployment ${deploymentName}: current ${buildB.buildId}, ramping none`);
    expect(printed.stdout).toMatch(new RegExp(`${buildA.buildId}\\s+(DRAINING|DRAINED)\\s`));
  }, 300_000);
});
