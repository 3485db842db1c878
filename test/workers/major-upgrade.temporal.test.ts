/**
 * The upgrade from 0.x to 1.0 (docs/deploying/versioning.md, "Major versions"), on the real dev server
 * against the sandbox: worker A runs v0.8.0's workflow bundle, the last 0.x release, on the harness's
 * task queue Q in a deployment of its own; worker B runs the current code on Q-v1 in another. On A:
 * an ACTIVE journey with a deposit the service has not confirmed yet, a journey waiting for KYC, one
 * parked at its KYC deadline, and a payout waiting for settlement. The client's hand-over moves the
 * three journeys to B; the deposit and the payout drain on A, and what comes after runs on B. Both
 * share one partner event store and endpoint, so a journey's event stream runs on across the boundary.
 *
 * Both workers run the current activities. In production the 0.x deployment runs its own package,
 * activities included; here only the workflow code differs, which is what crosses the boundary in
 * Temporal (histories, carried state, updates and signals between 0.8 and 1.0 runs).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { WorkflowHandle } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { tsToMs } from '@temporalio/common/lib/time';
import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RampflowClient } from '../../client';
import { setCurrentVersion } from '../../client/deployment';
import { PayoutClient } from '../../client/payouts';
import { dataConverterFromEnv } from '../../codec';
import { lastReleaseOf, latestReleaseBundle } from '../../dev/replay-corpus';
import { buildIdOfBundle } from '../../workers/versioning';
import type { customerJourney, reconcileWithService } from '../../workflows';
import {
  closeCustomerUpdate,
  depositWorkflowId,
  handOverSignal,
  type JourneyState,
  retryUpdate,
  tradeEventSignal,
} from '../../workflows/common/messages';
import type { CarriedJourney } from '../../workflows/journey/carry';
import { shownDeposit } from '../../workflows/journey/board';
import { payoutStateQuery, type PayoutState } from '../../workflows/payout/messages';
import { type Build, type BuildWorker, startBuildWorker, taskBuildIds } from '../support/builds';
import {
  FAST_DEPOSIT_TIMINGS,
  type JourneyHarness,
  registerTestExits,
  startActiveJourney,
  startJourneyHarness,
  TEST_AUD_SOURCE,
  TEST_OFFRAMP,
  TEST_ONRAMP,
} from '../support/journey-harness';
import { type PartnerEventsUnderTest, startPartnerEvents } from '../support/partner-event-wiring';
import { until as waitUntil } from '../support/until';

/** Waits as long as a worker start or a visibility update may take on a loaded machine. */
const until = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> =>
  waitUntil(what, probe, timeoutMs);

/** Parks a second after it starts waiting for KYC; its own looks are an hour apart, so it stays parked. */
const PARKS_AT_KYC = { kycDeadlineSeconds: 1, pollIntervalSeconds: 3600 };
const KYC_DEADLINE_MS = 120_000; // FAST_TIMINGS.kycDeadlineSeconds, the waiting journey's
/** A's deposits poll the service hourly: they move on only when something signals them. */
const HOURLY_DEPOSIT_POLLS = { ...FAST_DEPOSIT_TIMINGS, pollIntervalSeconds: 3600, pollBackoffCapSeconds: 3600 };
const FAST_PAYOUT = { pollIntervalSeconds: 1, settlementDeadlineSeconds: 600 };

type JourneyHandle = WorkflowHandle<typeof customerJourney>;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

let h: JourneyHarness;
let partnerEvents: PartnerEventsUnderTest | undefined;
let workerB: BuildWorker | undefined;
let buildA: Build;
let buildB: Build;
let queueA: string;
let queueB: string;
const deploymentName = `major-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  const release = lastReleaseOf(0);
  if (release !== 'v0.8.0') throw new Error(`the last 0.x release is v0.8.0, found ${release}`);
  const { code, codePath } = latestReleaseBundle(release);
  buildA = { codePath, buildId: buildIdOfBundle(code) };
  const current = inject('workflowBundlePath');
  buildB = { codePath: current, buildId: buildIdOfBundle(readFileSync(current)) };
  // One partner event store and endpoint for both, as the two deployments share them in production.
  partnerEvents = await startPartnerEvents();
  h = await startJourneyHarness(
    {},
    {
      workflowBundlePath: buildA.codePath,
      deploymentVersion: { deploymentName, buildId: buildA.buildId },
      depositTimings: HOURLY_DEPOSIT_POLLS,
      partnerEvents: partnerEvents.wiring,
    },
  );
  queueA = h.taskQueue;
  queueB = `${h.taskQueue}-v1`;
  await setCurrentVersion(h.client, { deploymentName, buildId: buildA.buildId });
  // The 1.0 workers: their own task queue and their own deployment, made current there.
  const deploymentB = { deploymentName: `${deploymentName}-v1`, buildId: buildB.buildId };
  workerB = await startBuildWorker(h, buildB.codePath, deploymentB, {
    taskQueue: queueB,
    partnerEvents: partnerEvents.wiring,
  });
  await setCurrentVersion(h.client, deploymentB);
}, 180_000);

afterAll(async () => {
  await workerB?.stop();
  await h?.close();
  await partnerEvents?.close();
});

/** How many workflows visibility lists as running on `taskQueue` (of one type when given). */
async function runningOn(taskQueue: string, workflowType?: string): Promise<number> {
  const query = [
    `ExecutionStatus = 'Running'`,
    `TaskQueue = '${taskQueue}'`,
    ...(workflowType ? [`WorkflowType = '${workflowType}'`] : []),
  ].join(' AND ');
  return (await h.client.workflow.count(query)).count;
}

const isHandOverSignal = (event: HistoryEvent) =>
  event.workflowExecutionSignaledEventAttributes?.signalName === handOverSignal.name;

/** A reconciliation pass of the 1.0 code, as the schedule runs it once the receiver is on 1.0. */
async function reconcileOnB(): Promise<void> {
  await h.client.workflow.execute<typeof reconcileWithService>('reconcileWithService', {
    taskQueue: queueB,
    workflowId: `reconcile-${randomUUID()}`,
    args: [{}],
  });
}

const stageOf = (state: JourneyState, depositId: string) => shownDeposit(state.deposits, depositId)?.stage;

/** What the run `runId` of `handle` started with: its input and what the run before it carried. */
async function startedWith(handle: JourneyHandle, runId: string): Promise<CarriedJourney | undefined> {
  const history = await h.client.workflow.getHandle(handle.workflowId, runId).fetchHistory();
  return decodeFromPayloadsAtIndex(
    h.client.options.loadedDataConverter,
    1,
    history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads,
  );
}

async function payoutState(handle: WorkflowHandle, accept: (state: PayoutState) => boolean): Promise<PayoutState> {
  return until('the payout to reach the expected state', async () => {
    const state = await handle.query(payoutStateQuery);
    return accept(state) ? state : undefined;
  });
}

/** A payee the service knows, with a GBP bank account a payout can pay. */
async function payeeBankAccount(): Promise<string> {
  const { id: customerId } = await h.ramp.customers.create({
    externalId: `payee-${randomUUID()}`,
    realName: 'Ada Lovelace',
    email: 'ada@example.com',
  });
  await h.control.approveCustomer(customerId!);
  const account = (await h.ramp.bankAccounts.add({
    customerId: customerId!,
    currency: 'GBP',
    bankName: 'Barclays',
    accountNo: '20000012345678',
    swift: 'BARCGB22',
    beneficiaryName: 'Ada Lovelace',
  })) as { id: string };
  return account.id;
}

describe('the upgrade from 0.8 to 1.0', () => {
  it('hands the 0.8 journeys over to the 1.0 queue with their state; the 0.8 deposit and payout drain on 0.8, and what comes next runs on 1.0', async () => {
    expect(buildB.buildId).not.toBe(buildA.buildId);

    // ---- On A (v0.8.0) ----
    const active = await startActiveJourney(h);
    const openMoney = await h.control.simulateFiatDeposit({
      virtualAccountId: active.virtualAccountId,
      amount: '40.00',
      currency: 'AUD',
      sender: TEST_AUD_SOURCE,
    });
    await h.reconcile();
    await h.waitForDeposit(openMoney.id, (s) => s.stage === 'RECEIVED');
    const openDeposit = h.client.workflow.getHandle(depositWorkflowId(openMoney.id));
    const openDepositRunId = (await openDeposit.describe()).runId;
    const activeBefore = await h.waitForJourney(active.handle, (s) => stageOf(s, openMoney.id) === 'RECEIVED');

    const waiting = await h.startJourney({ onramp: TEST_ONRAMP, offramp: TEST_OFFRAMP });
    const waitingBefore = await h.waitForJourney(waiting, (s) => s.stage === 'AWAITING_KYC');
    await until('the KYC link to reach the partner', async () =>
      partnerEvents!.endpoint.eventsOf(waitingBefore.externalId).length === 1 ? true : undefined,
    );
    const parked = await h.startJourney({ onramp: TEST_ONRAMP, offramp: TEST_OFFRAMP, timings: PARKS_AT_KYC });
    const parkedBefore = await h.waitForJourney(parked, (s) => s.stage === 'NEEDS_ATTENTION');
    expect(parkedBefore.attention).toMatchObject({ stage: 'AWAITING_KYC', errorType: 'Deadline' });

    await h.control.creditBalance({ currency: 'USDT', amount: '127' });
    const payout = await new PayoutClient(h.client, queueA).start({
      reference: `po-${randomUUID()}`,
      bankAccountId: await payeeBankAccount(),
      deductCurrency: 'USDT',
      deductAmount: '127',
      timings: FAST_PAYOUT,
    });
    const payoutWaiting = await payoutState(payout, (s) => s.stage === 'AWAITING_SETTLEMENT');

    const journeys: [JourneyHandle, JourneyState][] = [
      [active.handle, activeBefore],
      [waiting, waitingBefore],
      [parked, parkedBefore],
    ];
    const firstRuns = new Map<JourneyHandle, string>();
    for (const [handle] of journeys) firstRuns.set(handle, (await handle.describe()).runId);
    const firstRunOf = (handle: JourneyHandle) => h.client.workflow.getHandle(handle.workflowId, firstRuns.get(handle));
    await until('visibility to list the 3 journeys on A', async () =>
      (await runningOn(queueA, 'customerJourney')) === 3 ? true : undefined,
    );

    // ---- The hand-over, as `rampflow versions --hand-over --to-task-queue <Q-v1>` runs it ----
    const rampflow = new RampflowClient(h.client, queueA);
    const dry = await rampflow.handOverAllJourneys({ toTaskQueue: queueB }, { dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, listed: 3, done: 0, refused: 0, failed: 0 });
    expect(dry.wouldAct.map((target) => target.id).sort()).toEqual(journeys.map(([, s]) => s.externalId).sort());
    for (const [handle, runId] of firstRuns) {
      const { runId: latest, taskQueue } = await handle.describe();
      expect({ latest, taskQueue }).toEqual({ latest: runId, taskQueue: queueA });
      expect((await firstRunOf(handle).fetchHistory()).events?.filter(isHandOverSignal)).toEqual([]);
    }

    const moved = await rampflow.handOverAllJourneys({ toTaskQueue: queueB }, { concurrency: 3 });
    expect(moved).toMatchObject({ dryRun: false, listed: 3, done: 3, refused: 0, failed: 0 });

    for (const [handle, before] of journeys) {
      const firstRun = firstRunOf(handle);
      const runId = firstRuns.get(handle)!;
      await until(`${before.externalId}'s first run to continue as new`, async () =>
        (await firstRun.describe()).status.name === 'CONTINUED_AS_NEW' ? true : undefined,
      );
      expect(await taskBuildIds(firstRun)).toEqual([buildA.buildId]);
      // The next run, on B, carries the state the first run showed last.
      const carried = await h.waitForJourney(handle, (s) => s.customer.id === before.customer.id);
      const next = await handle.describe();
      expect(next.runId).not.toBe(runId);
      expect(next.taskQueue).toBe(queueB);
      expect(await taskBuildIds(handle)).toEqual([buildB.buildId]);
      expect(carried).toMatchObject({ stage: before.stage, customer: before.customer });
      expect(carried.attention).toEqual(before.attention);
      expect(carried.deposits).toEqual(before.deposits);
    }
    // The KYC deadline crosses as it stood: 2 minutes after the stage began on A, not after the next run began.
    const waitingFirstRun = (await firstRunOf(waiting).fetchHistory()).events ?? [];
    const firstRunStartedAt = tsToMs(waitingFirstRun[0]!.eventTime);
    const signalledAt = tsToMs(waitingFirstRun.find(isHandOverSignal)!.eventTime);
    const { stageDeadlineAt } = (await startedWith(waiting, (await waiting.describe()).runId))!;
    expect(stageDeadlineAt).toBeGreaterThanOrEqual(firstRunStartedAt + KYC_DEADLINE_MS);
    expect(stageDeadlineAt).toBeLessThanOrEqual(signalledAt + KYC_DEADLINE_MS);

    // ---- The drain: the deposit and the payout started on A end on A ----
    // The receiver and the reconciliation schedule point at 1.0 from the cut-over (versioning.md, "Major
    // versions", step 3), so 1.0 passes run while the 0.8 deposit is open. A's deposits look at the
    // service only hourly, so what moves this one on is what those passes signal it across the boundary
    // (a signal-with-start to a running workflow only signals it); the first pass also starts a new
    // deposit, on B.
    const newMoney = await h.control.simulateFiatDeposit({
      virtualAccountId: active.virtualAccountId,
      amount: '60.00',
      currency: 'AUD',
      sender: TEST_AUD_SOURCE,
    });
    await h.control.confirmDeposit(openMoney.id);
    await reconcileOnB();
    await h.waitForDeposit(newMoney.id, (s) => s.stage === 'RECEIVED');
    const trade = await h.waitForDeposit(openMoney.id, (s) => s.tradeId !== undefined);
    await h.control.settleTrade(trade.tradeId!);
    await reconcileOnB();
    expect(await openDeposit.result()).toMatchObject({ stage: 'COMPLETED' });
    expect(await taskBuildIds(openDeposit)).toEqual([buildA.buildId]);
    expect(await openDeposit.describe()).toMatchObject({ runId: openDepositRunId, taskQueue: queueA });
    // Only a 1.0 pass can have told it of its trade: A's pass ran before the trade existed.
    const signalled = (await openDeposit.fetchHistory()).events?.map(
      (event) => event.workflowExecutionSignaledEventAttributes?.signalName,
    );
    expect(signalled).toContain(tradeEventSignal.name);
    // Its report, sent by 0.8 code, is taken by the 1.0 journey.
    await h.waitForJourney(active.handle, (s) => stageOf(s, openMoney.id) === 'COMPLETED');

    await h.control.settlePayment(payoutWaiting.paymentId!);
    expect(await payout.result()).toMatchObject({ stage: 'SETTLED', paymentId: payoutWaiting.paymentId });
    expect(await taskBuildIds(payout)).toEqual([buildA.buildId]);

    // Nothing is left running on Q (the reconciliation pass ended): A's workers can go.
    await until('nothing to be left running on A', async () => ((await runningOn(queueA)) === 0 ? true : undefined));
    await h.stopWorker();

    // ---- On B (1.0) only ----
    // The parked journey takes an operator's retry and goes on past KYC.
    await h.control.approveCustomer(parkedBefore.customer.id!);
    expect(await parked.executeUpdate(retryUpdate, { args: [{}] })).toEqual({ resumed: 'AWAITING_KYC' });
    await h.waitForJourney(
      parked,
      (s) => s.attention === undefined && ['SETTING_UP_RAMPS', 'AWAITING_ACCOUNTS'].includes(s.stage),
    );

    // The journey waiting for KYC reaches ACTIVE.
    await registerTestExits(h.control, waitingBefore.customer.id!);
    await h.control.approveCustomer(waitingBefore.customer.id!);
    const accounts = await h.waitForJourney(
      waiting,
      (s) => s.stage === 'AWAITING_ACCOUNTS' && !!s.onramp?.virtualAccount && !!s.offramp?.depositAddress,
    );
    await h.control.approveVirtualAccount(accounts.onramp!.virtualAccount!.id);
    await h.control.approveDepositAddress(accounts.offramp!.depositAddress!.id);
    await h.waitForJourney(waiting, (s) => s.stage === 'ACTIVE');
    // Its partner event stream goes on where 0.8 left it: no sequence skipped or repeated.
    const stream = await until("the journey's 4 partner events to reach the partner", async () => {
      const received = partnerEvents!.endpoint.eventsOf(waitingBefore.externalId);
      return received.length >= 4 ? received : undefined;
    });
    expect(stream.map((event) => [event.sequence, event.type])).toEqual([
      [1, 'journey.kyc_required'],
      [2, 'journey.approved'],
      [3, 'journey.accounts_ready'],
      [4, 'journey.active'],
    ]);

    // The new deposit for the handed-over ACTIVE journey runs on B to its end.
    await h.control.confirmDeposit(newMoney.id);
    await h.control.settleTrade((await h.waitForDeposit(newMoney.id, (s) => s.tradeId !== undefined)).tradeId!);
    const newDeposit = h.client.workflow.getHandle(depositWorkflowId(newMoney.id));
    expect(await newDeposit.result()).toMatchObject({ stage: 'COMPLETED' });
    expect(await taskBuildIds(newDeposit)).toEqual([buildB.buildId]);
    expect((await newDeposit.describe()).taskQueue).toBe(queueB);
    await h.waitForJourney(
      active.handle,
      (s) => stageOf(s, openMoney.id) === 'COMPLETED' && stageOf(s, newMoney.id) === 'COMPLETED',
    );

    for (const [handle] of journeys) {
      await handle.executeUpdate(closeCustomerUpdate, { args: [{ reason: 'major upgrade test over' }] });
      expect(await handle.result()).toMatchObject({ stage: 'CLOSED' });
      expect(await taskBuildIds(handle)).toEqual([buildB.buildId]);
    }

    // ---- Replay: the first runs on v0.8.0's code, the next runs on the current code ----
    const historiesOf = (handles: WorkflowHandle[]) =>
      Promise.all(
        handles.map(async (handle) => ({ workflowId: handle.workflowId, history: await handle.fetchHistory() })),
      );
    const firstRunHandles = journeys.map(([handle]) => firstRunOf(handle));
    expect(await replayFailures(buildA.codePath, await historiesOf([...firstRunHandles, openDeposit, payout]))).toEqual(
      [],
    );
    expect(
      await replayFailures(buildB.codePath, await historiesOf([...journeys.map(([handle]) => handle), newDeposit])),
    ).toEqual([]);
  }, 600_000);
});

/** Replays `histories` on the bundle at `codePath`; a line per history that failed. */
async function replayFailures(
  codePath: string,
  histories: { workflowId: string; history: Awaited<ReturnType<WorkflowHandle['fetchHistory']>> }[],
): Promise<string[]> {
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories(
    { workflowBundle: { codePath }, dataConverter: dataConverterFromEnv(), replayName: 'major-upgrade-replay' },
    histories,
  )) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  return failures;
}
