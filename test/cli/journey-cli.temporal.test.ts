/**
 * `rampflow journey ...` and `rampflow deposit ...` run as a user runs them: a child process with
 * real output and exit codes, against the shared dev server, with a real rampflow worker (the
 * harness's, on its own task queue) and the sandbox as the service.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { customerJourney } from '../../workflows';
import { journeyWorkflowId } from '../../workflows/common/messages';
import {
  FAST_TIMINGS,
  startActiveJourney,
  startJourneyHarness,
  TEST_AUD_SOURCE,
  TEST_OFFRAMP,
  type JourneyHarness,
} from '../support/journey-harness';
import { runRampflow, type RunResult } from '../support/run';
import { temporalAddress } from '../support/temporal';

let h: JourneyHarness;
let dir: string;
beforeAll(async () => {
  h = await startJourneyHarness();
  dir = mkdtempSync(join(tmpdir(), 'rampflow-cli-'));
});
afterAll(async () => {
  await h.close();
});

function rampflow(...args: string[]): Promise<RunResult> {
  return runRampflow(args, {
    env: { ...process.env, TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_TASK_QUEUE: h.taskQueue },
  });
}

/** A signup request file, as a partner's script would keep one. */
function requestFile(timings: Record<string, number> = {}): string {
  const path = join(dir, `${randomUUID()}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      customer: { realName: 'Grace Hopper', email: 'grace@example.com' },
      offramp: TEST_OFFRAMP,
      timings: { ...FAST_TIMINGS, ...timings },
    }),
  );
  return path;
}

const journey = (externalId: string) =>
  h.client.workflow.getHandle<typeof customerJourney>(journeyWorkflowId(externalId));

function expectOk(result: RunResult): void {
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
}

function expectFailure(result: RunResult, line: string): void {
  expect(result.stdout).toBe('');
  expect(result.stderr).toBe(`rampflow: ${line}\n`);
  expect(result.code).toBe(1);
}

async function parkedJourney(): Promise<string> {
  const externalId = `cli-${randomUUID()}`;
  // Polls an hour apart: a parked journey moves only when an operator (or the test) acts.
  expectOk(
    await rampflow(
      'journey',
      'start',
      '--input',
      `@${requestFile({ kycDeadlineSeconds: 1, pollIntervalSeconds: 3600 })}`,
      '--external-id',
      externalId,
    ),
  );
  await h.waitForJourney(journey(externalId), (s) => s.stage === 'NEEDS_ATTENTION');
  return externalId;
}

describe('rampflow journey', () => {
  it('start takes the request from a file and flags, and a second start returns the same journey', async () => {
    const externalId = `cli-${randomUUID()}`;
    const file = `@${requestFile()}`;
    const first = await rampflow('journey', 'start', '--input', file, '--external-id', externalId, '--json');
    expectOk(first);
    const started = JSON.parse(first.stdout) as { workflowId: string; runId: string; status: string; stage: string };
    expect(started).toMatchObject({
      externalId,
      workflowId: `customer/${externalId}`,
      status: 'RUNNING',
      stage: expect.any(String),
    });

    const second = await rampflow('journey', 'start', '--input', file, '--external-id', externalId);
    expectOk(second);
    expect(second.stdout).toMatch(
      new RegExp(`^journey ${externalId}: workflow customer/${externalId}, RUNNING, stage [A-Z_]+\\n$`),
    );
    expect((await journey(externalId).describe()).runId).toBe(started.runId);

    const state = await h.waitForJourney(journey(externalId), (s) => s.stage === 'AWAITING_KYC');
    expect(state.customer).toMatchObject({ status: expect.any(String) });
    const status = await rampflow('journey', 'status', externalId);
    expectOk(status);
    expect(status.stdout).toMatch(new RegExp(`^journey ${externalId}: AWAITING_KYC\\n`));
    expect(status.stdout).toMatch(/ {2}customer: +id \S+, status \w+, KYC at https?:\/\//);
    expect(status.stdout).toMatch(/ {2}offramp: +USDT on ETH/);
    const json = await rampflow('journey', 'status', externalId, '--json');
    expectOk(json);
    expect(JSON.parse(json.stdout)).toMatchObject({
      externalId,
      stage: 'AWAITING_KYC',
      offramp: { currency: 'USDT', network: 'ETH' },
    });

    const closed = await rampflow('journey', 'close', externalId, '--reason', 'test over');
    expectOk(closed);
    expect(closed.stdout).toBe(`journey ${externalId} closed\n`);
    expect(await journey(externalId).result()).toEqual({ stage: 'CLOSED', reason: 'test over' });
  });

  it('start refuses bad input in one line naming the field, and starts nothing', async () => {
    const externalId = `cli-${randomUUID()}`;
    expectFailure(
      await rampflow(
        'journey',
        'start',
        '--input',
        `@${requestFile()}`,
        '--external-id',
        externalId,
        '--email',
        'nope',
      ),
      'customer.email: Invalid email address',
    );
    expectFailure(await rampflow('journey', 'status', externalId), `journey ${externalId} not found`);
  });

  it('list finds parked journeys by stage; retry and cancel resume or end them', async () => {
    const [toRetry, toCancel] = await Promise.all([parkedJourney(), parkedJourney()]);

    let listed: { externalId: string; stage: string }[] = [];
    for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
      const result = await rampflow('journey', 'list', '--stage', 'NEEDS_ATTENTION', '--json');
      expectOk(result);
      listed = JSON.parse(result.stdout) as typeof listed;
      if ([toRetry, toCancel].every((id) => listed.some((entry) => entry.externalId === id))) break;
    }
    expect(listed.filter((entry) => entry.externalId === toRetry || entry.externalId === toCancel)).toHaveLength(2);
    expect(listed.every((entry) => entry.stage === 'NEEDS_ATTENTION')).toBe(true);
    const table = await rampflow('journey', 'list', '--stage', 'NEEDS_ATTENTION', '--limit', '50');
    expectOk(table);
    // Another test's ended journey, last indexed NEEDS_ATTENTION, adds the ended column on the shared dev server.
    expect(table.stdout).toMatch(
      /^EXTERNAL ID +STAGE +STATUS +CUSTOMER ID +STARTED( +ENDED BECAUSE)? +PARKED BECAUSE\n/,
    );
    // The reason, read from the parked journey's state: visibility indexes only the stage.
    expect(table.stdout).toMatch(
      new RegExp(
        `\\n${toRetry} +NEEDS_ATTENTION +RUNNING +\\S+ +\\S+ +(- +)?Deadline: the deadline passed while waiting for the KYC decision\\n`,
      ),
    );

    const status = await rampflow('journey', 'status', toRetry);
    expect(status.stdout).toMatch(
      / {2}attention: +the deadline passed while waiting for the KYC decision \(parked at AWAITING_KYC since \S+, Deadline\)/,
    );

    const parked = await h.waitForJourney(journey(toRetry), (s) => s.stage === 'NEEDS_ATTENTION');
    await h.control.approveCustomer(parked.customer.id!);
    await h.control.registerBankAccount({
      customerId: parked.customer.id!,
      currency: 'AUD',
      bankName: 'Test Bank',
      accountNo: '555666777',
      swift: 'TESTAU2S',
    });
    const corrected = JSON.stringify({ offramp: { ...TEST_OFFRAMP, bankAccount: { accountNo: '555666777' } } });
    const retried = await rampflow('journey', 'retry', toRetry, '--input', corrected);
    expectOk(retried);
    expect(retried.stdout).toBe(`journey ${toRetry} resumed at AWAITING_KYC\n`);
    // The retry asks the service at once, and the corrected bank account is the one the journey finds.
    const found = await h.waitForJourney(journey(toRetry), (s) => s.offramp?.bankAccountId !== undefined);
    expect((await h.ramp.bankAccounts.detail({ id: found.offramp!.bankAccountId! })).accountNo).toBe('555666777');
    // Not parked any more: the workflow's validator refuses, and the CLI says why in one line.
    expectFailure(
      await rampflow('journey', 'retry', toRetry),
      `retry refused by journey ${toRetry}: nothing to retry: the workflow is not in NEEDS_ATTENTION`,
    );

    const cancelled = await rampflow('journey', 'cancel', toCancel, '--reason', 'duplicate signup');
    expectOk(cancelled);
    expect(cancelled.stdout).toBe(`journey ${toCancel} cancelled\n`);
    expect(await journey(toCancel).result()).toEqual({ stage: 'CLOSED', reason: 'duplicate signup' });
    expectFailure(
      await rampflow('journey', 'cancel', toCancel),
      `cancel refused by journey ${toCancel}: it has already ended (COMPLETED)`,
    );
    await journey(toRetry).terminate('test over');
  });

  it('retry refuses corrected input that is not valid, naming the field', async () => {
    expectFailure(
      await rampflow('journey', 'retry', 'anyone', '--input', '{"offramp":{"currency":"USDT","network":"ETH"}}'),
      'correctedInput.offramp.bankAccount: Invalid input: expected object, received undefined',
    );
  });
});

describe('rampflow deposit', () => {
  it("lists and shows a customer's deposit, and attach submits the document the service asked for", async () => {
    const externalId = `cli-${randomUUID()}`;
    const { handle, virtualAccountId } = await startActiveJourney(h, { customer: { externalId } });
    const deposit = await h.control.simulateFiatDeposit({
      virtualAccountId,
      amount: '42.00',
      currency: 'AUD',
      sender: TEST_AUD_SOURCE,
    });
    await h.control.requireDepositAction(deposit.id);
    await h.reconcile();
    await h.waitForJourney(handle, (s) =>
      s.deposits.open.some((d) => d.depositId === deposit.id && d.stage === 'ACTION_REQUIRED'),
    );

    const status = await rampflow('deposit', 'status', deposit.id);
    expectOk(status);
    expect(status.stdout).toMatch(
      new RegExp(`^deposit ${deposit.id}: ACTION_REQUIRED\\n {2}waiting for: +an operator to submit the attachment`),
    );

    let listed: { deposits: { depositId: string; stage: string }[]; nextPageToken?: string } = { deposits: [] };
    for (
      const deadline = Date.now() + 20_000;
      Date.now() < deadline && listed.deposits[0]?.stage !== 'ACTION_REQUIRED';
    ) {
      const result = await rampflow('deposit', 'list', '--customer', externalId, '--json');
      expectOk(result);
      listed = JSON.parse(result.stdout) as typeof listed;
    }
    expect(listed).toEqual({
      deposits: [expect.objectContaining({ depositId: deposit.id, stage: 'ACTION_REQUIRED', externalId })],
    });

    const file = join(dir, 'payslip.pdf');
    writeFileSync(file, '%PDF-1.4 payslip');
    expectFailure(
      await rampflow('deposit', 'attach', deposit.id, join(dir, 'payslip.docx')),
      'cannot tell the content type of payslip.docx: pass --content-type',
    );
    const attached = await rampflow('deposit', 'attach', deposit.id, file);
    expectOk(attached);
    expect(attached.stdout).toBe(`deposit ${deposit.id}: payslip.pdf submitted to the service\n`);
    const after = await rampflow('deposit', 'status', deposit.id, '--json');
    expect(JSON.parse(after.stdout)).toMatchObject({
      depositId: deposit.id,
      stage: 'ACTION_REQUIRED',
      waitingFor: expect.stringMatching(/review the attachment/),
    });
    await handle.terminate('test over');
    await h.client.workflow.getHandle(`deposit/${deposit.id}`).terminate('test over');
  });
});
