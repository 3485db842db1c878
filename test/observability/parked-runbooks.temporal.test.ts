/**
 * The parked alerts (RampflowPayoutParked, RampflowDepositParked, RampflowJourneyParked) with one
 * payout, one deposit and one journey parked on the shared dev server: the receiver's scan serves each
 * type's longest parked (the alerts' input; promtool tests the rules on it), and each runbook's first
 * command, run as written, prints the parked workflow's ID under its reason.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { StageAgeScan } from '../../observability/stage-age-scan';
import { depositWorkflowId, payoutWorkflowId } from '../../workflows/common/messages';
import { payoutStateQuery } from '../../workflows/payout/messages';
import { startActiveJourney, startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { PROJECT_ROOT, runRampflow } from '../support/run';
import { temporalAddress } from '../support/temporal';
import { until } from '../support/until';

let h: JourneyHarness;
/** Each parked workflow, its reason's row on the screen and words of the reason in full. */
const parked: Record<'payout' | 'deposit' | 'journey', { workflowId: string; row: RegExp; words: string }> = {
  payout: { workflowId: '', row: /^ {2}payouts +Refused +at CREATING_PAYMENT /, words: 'insufficient USDT balance' },
  deposit: { workflowId: '', row: /^ {2}deposits +Deadline +at RECEIVED /, words: 'deadline' },
  journey: { workflowId: '', row: /^ {2}journeys +Deadline +at AWAITING_KYC /, words: 'deadline' },
};

const rampflowEnv = () => ({ ...process.env, TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_TASK_QUEUE: h.taskQueue });

beforeAll(async () => {
  // Deposit steps park after two seconds without an answer; the sandbox never confirms this one.
  h = await startJourneyHarness({}, { depositTimings: { pollIntervalSeconds: 1, stepDeadlineSeconds: 2 } });

  const journey = await h.startJourney({ timings: { kycDeadlineSeconds: 2 } });
  parked.journey.workflowId = journey.workflowId;

  const { handle, depositAddressId } = await startActiveJourney(h);
  const deposit = await h.control.simulateCryptoDeposit({
    depositAddressId,
    amount: '5.00',
    currency: 'USDT',
    sender: { address: '0x0000000000000000000000000000000000000002', network: 'ETH' },
  });
  await h.reconcile();
  parked.deposit.workflowId = depositWorkflowId(deposit.id);

  // A payout the partner's balance (empty in the sandbox) cannot cover.
  const { id: customerId } = await h.ramp.customers.create({
    externalId: `payee-${randomUUID()}`,
    realName: 'Ada Lovelace',
    email: 'ada@example.com',
  });
  const { id: bankAccountId } = (await h.ramp.bankAccounts.add({
    customerId: customerId!,
    currency: 'AUD',
    bankName: 'Test Bank',
    accountNo: '11223344',
    swift: 'TESTAU2S',
    beneficiaryName: 'Ada Lovelace',
  })) as { id: string };
  const reference = `parked-${randomUUID()}`;
  const created = await runRampflow(
    [
      'payout',
      'create',
      '--reference',
      reference,
      '--bank-account',
      bankAccountId,
      '--currency',
      'USDT',
      '--amount',
      '65',
      '--json',
    ],
    { env: rampflowEnv() },
  );
  expect(created.stderr).toBe('');
  parked.payout.workflowId = payoutWorkflowId(reference);

  await h.waitForJourney(journey, (state) => state.stage === 'NEEDS_ATTENTION');
  await h.waitForDeposit(deposit.id, (state) => state.stage === 'NEEDS_ATTENTION');
  await handle.terminate('its deposit is parked; the journey is not needed any more');
}, 120_000);

afterAll(async () => {
  await h?.close();
});

/** The first command of a runbook's "What to look at": the first fenced shell block's first line. */
function firstCommand(alert: string): string[] {
  const page = readFileSync(join(PROJECT_ROOT, 'docs', 'runbooks', `${alert}.md`), 'utf8');
  const lookAt = page.slice(page.indexOf('**What to look at.**'));
  const block = /```sh\n\s*(.+)\n/.exec(lookAt);
  expect(block, `${alert}.md has a shell block under "What to look at"`).not.toBeNull();
  const words = block![1]!.trim().split(/\s+/);
  expect(words.slice(0, 2), `${alert}.md's first command is a rampflow command`).toEqual(['npx', 'rampflow']);
  return words.slice(2);
}

/** The lines of the screen's section on parked work. */
function parkedSection(stdout: string): string {
  const from = stdout.indexOf('parked (NEEDS_ATTENTION)');
  return from < 0 ? '' : stdout.slice(from, stdout.indexOf('\nlast reconciliation', from));
}

describe("the parked alerts' input", () => {
  it("the receiver's scan serves each type's longest parked, from when it parked: what RampflowPayoutParked compares with its SLA", async () => {
    const registry = new Registry();
    const scan = new StageAgeScan({ client: h.client, taskQueue: h.taskQueue, registry });
    const since = await until(
      'the scan to find the parked payout',
      async () => {
        await scan.scanOnce();
        return scan.oldestAt('payout', 'NEEDS_ATTENTION')?.since;
      },
      30_000,
      500,
    );
    const { attention } = await h.client.workflow.getHandle(parked.payout.workflowId).query(payoutStateQuery);
    // RampStageSince is the park's own time (workflow time, indexed in the same upsert as the stage).
    expect(Math.abs(since - Date.parse(attention!.since))).toBeLessThan(1_000);
    const line = (await registry.metrics())
      .split('\n')
      .find((one) =>
        one.startsWith('rampflow_stage_oldest_waiter_seconds{workflow_type="payout",stage="NEEDS_ATTENTION"}'),
      );
    expect(Number(line?.split(' ').at(-1))).toBeGreaterThan(0);
    for (const workflowType of ['depositLifecycle', 'customerJourney'])
      expect(scan.oldestAt(workflowType, 'NEEDS_ATTENTION')?.since, workflowType).toBeDefined();
  });
});

describe("the parked alerts' runbooks", () => {
  it.each([
    ['RampflowPayoutParked', 'payout'],
    ['RampflowDepositParked', 'deposit'],
    ['RampflowJourneyParked', 'journey'],
  ] as const)("%s: the first command prints the parked %s's ID under its reason", async (alert, kind) => {
    const command = firstCommand(alert);
    const { workflowId, row, words } = parked[kind];
    const section = await until(
      `${command.join(' ')} to show ${workflowId} as parked`,
      async () => {
        const result = await runRampflow(command, { env: rampflowEnv() });
        expect(result.code, result.stderr).toBe(0);
        const found = parkedSection(result.stdout);
        return found.includes(workflowId) ? found : undefined;
      },
      60_000,
      1_000,
    );
    const lines = section.split('\n');
    const rowAt = lines.findIndex((line) => row.test(line));
    expect(rowAt, section).toBeGreaterThan(0);
    // The reason's block: its row, then what is indented under it, up to the next reason's row.
    const next = lines.findIndex((line, index) => index > rowAt && /^ {2}\S/.test(line));
    const block = lines.slice(rowAt, next > 0 ? next : undefined).join('\n');
    expect(block, section).toContain(words);
    expect(block, section).toContain(workflowId);
  });
});
