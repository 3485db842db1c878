/**
 * A deposit parked on an old version must not keep that version's workers up for ever (README,
 * "Changing workflow code", "Parked pinned workflows"). On the real dev server: a deposit parks on
 * build A (the previous release of the current major, PINNED there: test/support/builds.ts, `previousBuild`), build B (the current code) becomes current,
 * `rampflow versions --move-parked` moves the parked deposit off A, A drains and its workers stop, and
 * an operator's retry then runs the deposit on B to completion.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeDeployment, setCurrentVersion } from '../../client/deployment';
import { closeCustomerUpdate, depositWorkflowId, retryUpdate } from '../../workflows/common/messages';
import { type BuildWorker, currentBuild, previousBuild, startBuildWorker, taskBuildIds } from '../support/builds';
import {
  type JourneyHarness,
  startActiveJourney,
  startJourneyHarness,
  TEST_AUD_SOURCE,
} from '../support/journey-harness';
import { runRampflow } from '../support/run';
import { temporalAddress } from '../support/temporal';
import { until as waitUntil } from '../support/until';

const PINNED = '1'; // temporal.api.enums.v1.VersioningBehavior.VERSIONING_BEHAVIOR_PINNED

const until = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> =>
  waitUntil(what, probe, timeoutMs);

let h: JourneyHarness;
let workerB: BuildWorker | undefined;
const deploymentName = `parked-${randomUUID().slice(0, 8)}`;
let buildA: { codePath: string; buildId: string };
let buildB: { codePath: string; buildId: string };

beforeAll(async () => {
  buildA = previousBuild();
  buildB = await currentBuild(buildA.buildId);
  h = await startJourneyHarness(
    {},
    { workflowBundlePath: buildA.codePath, deploymentVersion: { deploymentName, buildId: buildA.buildId } },
  );
  await setCurrentVersion(h.client, { deploymentName, buildId: buildA.buildId });
}, 180_000);

afterAll(async () => {
  await workerB?.stop();
  await h?.close();
});

describe('a deposit parked on an old version', () => {
  it("is moved off it, so the old version drains and its workers stop, and an operator's retry runs it on the new version", async () => {
    // On A: money arrives for a customer whose journey has ended, so the deposit parks for an operator.
    const active = await startActiveJourney(h);
    await active.handle.executeUpdate(closeCustomerUpdate, { args: [{ reason: 'the customer left' }] });
    await active.handle.result();
    const money = await h.control.simulateFiatDeposit({
      virtualAccountId: active.virtualAccountId,
      amount: '25.00',
      currency: 'AUD',
      sender: TEST_AUD_SOURCE,
    });
    await h.reconcile();
    await h.waitForDeposit(money.id, (s) => s.stage === 'NEEDS_ATTENTION');
    const deposit = h.client.workflow.getHandle(depositWorkflowId(money.id));
    const versioning = (await deposit.describe()).raw.workflowExecutionInfo?.versioningInfo;
    expect({ behavior: String(versioning?.behavior), buildId: versioning?.deploymentVersion?.buildId }).toEqual({
      behavior: PINNED,
      buildId: buildA.buildId,
    });

    // The deploy: B beside A, then B current. The parked deposit still holds A.
    workerB = await startBuildWorker(h, buildB.codePath, { deploymentName, buildId: buildB.buildId });
    await setCurrentVersion(h.client, { deploymentName, buildId: buildB.buildId });
    const pinnedOnA = async () =>
      (await describeDeployment(h.client, deploymentName)).versions.find(
        (version) => version.buildId === buildA.buildId,
      )?.pinned;
    await until('visibility to count the parked deposit as pinned to A', async () =>
      (await pinnedOnA()) === 1 ? true : undefined,
    );

    // What the operator runs after the deploy.
    const env = { ...process.env, TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_DEPLOYMENT_NAME: deploymentName };
    const dry = await runRampflow(['versions', '--move-parked', '--dry-run'], { env });
    expect(dry.stderr).toBe('');
    expect(dry.stdout).toContain(
      `would move ${depositWorkflowId(money.id)} (depositLifecycle, parked on ${buildA.buildId}) to the current version`,
    );
    expect(await pinnedOnA()).toBe(1);
    const moved = await runRampflow(['versions', '--move-parked'], { env });
    expect(moved.stderr).toBe('');
    expect(moved.stdout).toContain(
      `moved ${depositWorkflowId(money.id)} (depositLifecycle, parked on ${buildA.buildId}) to the current version`,
    );

    // A has nothing pinned to it any more: its workers can go.
    await until('A to have nothing pinned', async () => ((await pinnedOnA()) === 0 ? true : undefined));
    const printed = await runRampflow(['versions'], { env });
    expect(printed.stdout).toContain(`deployment ${deploymentName}: current ${buildB.buildId}, ramping none`);
    expect(printed.stdout).toMatch(new RegExp(`${buildA.buildId}\\s+(DRAINING|DRAINED)\\s+\\S+\\s+0\\s`));
    await h.stopWorker();

    // The operator tracks the deposit anyway: only B's workers are left to run it, to completion.
    await deposit.executeUpdate(retryUpdate, { args: [{}] });
    await h.waitForDeposit(money.id, (s) => s.stage === 'RECEIVED' || s.stage === 'CONFIRMED');
    await h.control.confirmDeposit(money.id);
    await h.control.settleTrade((await h.waitForDeposit(money.id, (s) => s.tradeId !== undefined)).tradeId!);
    expect(await deposit.result()).toMatchObject({ stage: 'COMPLETED' });
    expect(await taskBuildIds(deposit)).toEqual([buildA.buildId, buildB.buildId]);
  }, 300_000);
});
