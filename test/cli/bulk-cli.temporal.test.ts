/**
 * `rampflow journey|deposit retry|cancel --all` as an operator runs them: child processes against
 * the shared dev server, a real rampflow worker (the harness's, on its own task queue, which is the
 * set a bulk action is scoped to) and the sandbox as the service. Journeys and deposits are parked
 * the way the workflow tests park them: a deadline passing, the service refusing a currency (422).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BulkReport } from '../../client';
import type { customerJourney, depositLifecycle } from '../../workflows';
import {
  depositStateQuery,
  depositWorkflowId,
  type JourneyState,
  journeyWorkflowId,
} from '../../workflows/common/messages';
import {
  type JourneyHarness,
  registerTestExits,
  startActiveJourney,
  startJourneyHarness,
  TEST_WALLET,
} from '../support/journey-harness';
import { runRampflow, type RunResult } from '../support/run';
import { temporalAddress } from '../support/temporal';

let h: JourneyHarness;
/** A worker whose deposit steps park after two seconds without an answer. */
let impatient: JourneyHarness;
beforeAll(async () => {
  h = await startJourneyHarness();
  impatient = await startJourneyHarness({}, { depositTimings: { pollIntervalSeconds: 1, stepDeadlineSeconds: 2 } });
});
afterAll(async () => {
  await h?.close();
  await impatient?.close();
});

/** The CLI against a harness's task queue (the set a bulk action is scoped to). */
function rampflowOn(harness: JourneyHarness, ...args: string[]): Promise<RunResult> {
  return runRampflow(args, {
    env: { ...process.env, TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_TASK_QUEUE: harness.taskQueue },
  });
}
const rampflow = (...args: string[]) => rampflowOn(h, ...args);

/** Success, with nothing on stderr but progress lines (printed only for runs longer than a second). */
function expectOk(result: RunResult): void {
  expect(result.stderr).toMatch(/^((journey|deposit|payout) (retry|cancel)( \(dry run\))?: \d+ of \d+ \(.*\)\n)*$/);
  expect(result.code).toBe(0);
}

const journey = (externalId: string) =>
  h.client.workflow.getHandle<typeof customerJourney>(journeyWorkflowId(externalId));

/** Visibility is eventually consistent: waits until it shows `count` workflows for `query` on this test's task queue. */
async function visible(query: string, count: number, harness = h): Promise<void> {
  const scoped = `${query} AND TaskQueue = '${harness.taskQueue}' AND ExecutionStatus = 'Running'`;
  for (const deadline = Date.now() + 30_000; ;) {
    const found = await h.client.workflow.count(scoped);
    if (found.count === count) return;
    if (Date.now() > deadline) throw new Error(`visibility shows ${found.count}, not ${count}, for ${scoped}`);
    await new Promise((wake) => setTimeout(wake, 200));
  }
}

async function parkedAtKycDeadline(): Promise<JourneyState> {
  // Polls an hour apart: a parked journey does not find its late approval by itself before the retry.
  const handle = await h.startJourney({ timings: { kycDeadlineSeconds: 1, pollIntervalSeconds: 3600 } });
  return h.waitForJourney(handle, (s) => s.stage === 'NEEDS_ATTENTION');
}

/** Parked by the service refusing an onramp in a currency it does not support (422 INVALID_PARAMETERS). */
async function parkedByRefusal(): Promise<JourneyState> {
  const handle = await h.startJourney({
    onramp: { currency: 'XXX', cryptoAddress: { address: TEST_WALLET, network: 'ETH' } },
  });
  const kyc = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC');
  await registerTestExits(h.control, kyc.customer.id!);
  await h.control.approveCustomer(kyc.customer.id!);
  return h.waitForJourney(handle, (s) => s.stage === 'NEEDS_ATTENTION');
}

describe('rampflow journey retry|cancel --all', () => {
  it('counts in a dry run, then acts only on the journeys parked for the error type asked for', async () => {
    const [late1, late2, refused] = await Promise.all([
      parkedAtKycDeadline(),
      parkedAtKycDeadline(),
      parkedByRefusal(),
    ]);
    expect([late1, late2].map((s) => s.attention?.errorType)).toEqual(['Deadline', 'Deadline']);
    expect(refused.attention?.errorType).toBe('InvalidParameters');
    await visible("WorkflowType = 'customerJourney' AND RampStage = 'NEEDS_ATTENTION'", 3);

    const dry = await rampflow('journey', 'retry', '--all', '--dry-run');
    expectOk(dry);
    const [headline, ...listed] = dry.stdout.trimEnd().split('\n');
    expect(headline).toBe('dry run: would retry 3 of 3 journeys at NEEDS_ATTENTION; nothing was changed');
    expect(listed.map((line) => line.trim()).sort()).toEqual([late1, late2, refused].map((s) => s.externalId).sort());

    const dryFiltered = await rampflow(
      'journey',
      'retry',
      '--all',
      '--error-type',
      'InvalidParameters',
      '--dry-run',
      '--json',
    );
    expectOk(dryFiltered);
    const report = JSON.parse(dryFiltered.stdout) as BulkReport;
    expect(report).toMatchObject({ dryRun: true, listed: 3, matched: 1, skipped: 2, done: 0, failed: 0 });
    expect(report.wouldAct).toEqual([
      {
        id: refused.externalId,
        errorType: 'InvalidParameters',
        reason: expect.stringMatching(/^creating the onramp: /),
      },
    ]);

    // Nothing changed: each journey is still parked since the same moment.
    for (const before of [late1, late2, refused]) {
      const now = await h.waitForJourney(journey(before.externalId), () => true);
      expect(now.attention).toEqual(before.attention);
    }

    // The customers pass KYC late; a retry of the journeys parked at the deadline picks that up.
    for (const late of [late1, late2]) await h.control.approveCustomer(late.customer.id!);
    const retried = await rampflow('journey', 'retry', '--all', '--error-type', 'Deadline');
    expectOk(retried);
    expect(retried.stdout).toBe(
      'retried 2 of 3 journeys at NEEDS_ATTENTION with error type Deadline; refused 0 (moved on meanwhile), failed 0, skipped 1\n',
    );
    for (const late of [late1, late2])
      await h.waitForJourney(journey(late.externalId), (s) => s.attention?.since !== late.attention!.since);
    expect((await h.waitForJourney(journey(refused.externalId), () => true)).attention).toEqual(refused.attention);

    // Cancel with a filter: the journey refused by the service ends, the others are left alone.
    const cancelled = await rampflow(
      'journey',
      'cancel',
      '--all',
      '--error-type',
      'InvalidParameters',
      '--reason',
      'unsupported currency',
    );
    expectOk(cancelled);
    // Visibility may still list the retried journeys as parked for a moment; their state query says otherwise.
    expect(cancelled.stdout).toMatch(
      /^cancelled 1 of [1-3] journeys? at NEEDS_ATTENTION with error type InvalidParameters; refused 0 \(moved on meanwhile\), failed 0, skipped [0-2]\n$/,
    );
    expect(await journey(refused.externalId).result()).toEqual({ stage: 'CLOSED', reason: 'unsupported currency' });
    for (const late of [late1, late2]) expect((await journey(late.externalId).describe()).status.name).toBe('RUNNING');

    await Promise.all([late1, late2].map((late) => journey(late.externalId).terminate('test over')));
  });

  it('refuses a mix of one journey and --all, corrected input with --all, and bulk flags without it', async () => {
    expect(await rampflow('journey', 'retry', 'user-1', '--all')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'rampflow: give either <externalId> or --all, not both\n',
    });
    expect(await rampflow('journey', 'retry', '--all', '--input', '{}')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'rampflow: --input applies to one journey, not to --all\n',
    });
    expect(await rampflow('journey', 'cancel', 'user-1', '--dry-run')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'rampflow: --dry-run needs --all\n',
    });
  });
});

describe('rampflow deposit retry|cancel --all', () => {
  it("counts a customer's parked deposits in a dry run, then cancels them all", async () => {
    const h = impatient;
    const { handle, state, depositAddressId } = await startActiveJourney(h);
    const sender = { address: '0x0000000000000000000000000000000000000002', network: 'ETH' };
    const deposits = await Promise.all(
      ['5.00', '6.00'].map((amount) =>
        h.control.simulateCryptoDeposit({ depositAddressId, amount, currency: 'USDT', sender }),
      ),
    );
    await h.reconcile();
    const depositHandles = deposits.map((deposit) =>
      h.client.workflow.getHandle<typeof depositLifecycle>(depositWorkflowId(deposit.id)),
    );
    for (const depositHandle of depositHandles) {
      for (
        const deadline = Date.now() + 60_000;
        (await depositHandle.query(depositStateQuery).catch(() => undefined))?.stage !== 'NEEDS_ATTENTION';
      ) {
        if (Date.now() > deadline) throw new Error(`${depositHandle.workflowId} never parked`);
        await new Promise((wake) => setTimeout(wake, 200));
      }
    }
    const parkedSince = await Promise.all(
      depositHandles.map(async (depositHandle) => (await depositHandle.query(depositStateQuery)).attention!.since),
    );
    await visible(
      `WorkflowType = 'depositLifecycle' AND RampStage = 'NEEDS_ATTENTION' AND RampExternalId = '${state.externalId}'`,
      2,
      h,
    );

    // The list shows why each is parked (read from its state; visibility indexes only the stage).
    const listed = await rampflowOn(h, 'deposit', 'list', '--customer', state.externalId, '--stage', 'NEEDS_ATTENTION');
    expect(listed.stdout).toMatch(/^DEPOSIT ID +STAGE +STATUS +EXTERNAL ID +AMOUNT +STARTED +PARKED BECAUSE\n/);
    for (const deposit of deposits)
      expect(listed.stdout).toMatch(
        new RegExp(
          `\\n${deposit.id} +NEEDS_ATTENTION +RUNNING .* Deadline: the deadline passed while waiting for \\S.*\\n`,
        ),
      );

    const dry = await rampflowOn(h, 'deposit', 'retry', '--all', '--customer', state.externalId, '--dry-run');
    expectOk(dry);
    expect(dry.stdout.split('\n')[0]).toBe(
      `dry run: would retry 2 of 2 deposits at NEEDS_ATTENTION of customer ${state.externalId}; nothing was changed`,
    );
    expect(
      await Promise.all(
        depositHandles.map(async (depositHandle) => (await depositHandle.query(depositStateQuery)).attention?.since),
      ),
    ).toEqual(parkedSince);

    const cancelled = await rampflowOn(
      h,
      'deposit',
      'cancel',
      '--all',
      '--customer',
      state.externalId,
      '--reason',
      'refunded by hand',
      '--json',
    );
    expectOk(cancelled);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({
      dryRun: false,
      listed: 2,
      matched: 2,
      done: 2,
      refused: 0,
      failed: 0,
    });
    for (const depositHandle of depositHandles)
      expect(await depositHandle.result()).toEqual({ stage: 'CANCELLED', reason: 'refunded by hand' });
    await handle.terminate('test over');
  });
});
