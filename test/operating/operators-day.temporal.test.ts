/**
 * An operator's day, as the pages tell it: each command below is read from the page that gives it
 * (docs/operating/ and docs/runbooks/), its example values replaced by the day's own, run with the
 * real CLI against a dev server, the sandbox and a worker, and held to what the page says it does.
 * The day has one of each thing an operator meets: a journey parked at its KYC deadline, a deposit
 * the service holds for an attachment, a payout the balance cannot cover, and a partner endpoint that
 * fails until its deliveries park. A page that drops or changes a command fails here, as does a
 * command or filter that stops doing what its page says.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payoutWorkflowId } from '../../workflows/common/messages';
import { startActiveJourney, startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { startPartnerEvents, type PartnerEventsUnderTest } from '../support/partner-event-wiring';
import { PROJECT_ROOT, runRampflow, type RunResult } from '../support/run';
import { temporalAddress } from '../support/temporal';
import { until } from '../support/until';

let h: JourneyHarness;
let events: PartnerEventsUnderTest;
/** The day's own values, put where the pages' examples stand. */
const day = { externalId: '', depositId: '', reference: '', stream: '' };
/** Where the operator works: payslip.pdf is there. */
const workdir = mkdtempSync(join(tmpdir(), 'rampflow-operator-'));

beforeAll(async () => {
  // Deliveries to a failing endpoint park after 3 s; deposit steps wait long enough to be held.
  events = await startPartnerEvents({ retrySeconds: 3, timeoutMs: 1_000 });
  events.endpoint.answer({ status: 503 });
  h = await startJourneyHarness(
    {},
    { partnerEvents: events.wiring, depositTimings: { pollIntervalSeconds: 1, stepDeadlineSeconds: 600 } },
  );

  // A journey whose customer never finishes KYC: parked at its deadline.
  const parkedJourney = await h.startJourney({ timings: { kycDeadlineSeconds: 2 } });
  day.externalId = (await h.waitForJourney(parkedJourney, (state) => state.stage === 'NEEDS_ATTENTION')).externalId;

  // A deposit the service holds for an attachment (no event announces it).
  const { state, depositAddressId } = await startActiveJourney(h);
  const deposit = await h.control.simulateCryptoDeposit({
    depositAddressId,
    amount: '5.00',
    currency: 'USDT',
    sender: { address: '0x0000000000000000000000000000000000000003', network: 'ETH' },
  });
  await h.control.requireDepositAction(deposit.id);
  await h.reconcile();
  day.depositId = deposit.id;
  await h.waitForDeposit(deposit.id, (deposited) => deposited.stage === 'ACTION_REQUIRED');

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
  day.reference = `day-${randomUUID().slice(0, 8)}`;
  await h.client.workflow.start('payout', {
    taskQueue: h.taskQueue,
    workflowId: payoutWorkflowId(day.reference),
    args: [{ reference: day.reference, bankAccountId, deductCurrency: 'USDT', deductAmount: '65' }],
  });

  // The active journey's events met the failing endpoint: their stream's deliveries park.
  day.stream = `customer/${state.externalId}`;
  writeFileSync(join(workdir, 'payslip.pdf'), '%PDF-1.4 a payslip\n');
}, 180_000);

afterAll(async () => {
  await h?.close();
  await events?.close();
});

/** A page's text. */
const page = (path: string): string => readFileSync(join(PROJECT_ROOT, path), 'utf8');

/**
 * Runs `command` as `path` gives it (the test fails when the page no longer does; with or without
 * `npx`), with the page's example values replaced by the day's, where the operator works.
 */
async function asDocumented(path: string, command: string): Promise<RunResult & { ran: string }> {
  expect(page(path), `${path} gives \`${command}\``).toContain(command);
  const ran = command
    .replace(/^npx /, '')
    .replaceAll('user-42', day.externalId)
    .replaceAll('<depositId>', day.depositId)
    .replaceAll('<reference>', day.reference)
    .replaceAll('<stream>', day.stream);
  const words = ran.split(/\s+/);
  expect(words[0]).toBe('rampflow');
  const result = await runRampflow(words.slice(1), {
    cwd: workdir,
    env: { ...process.env, TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_TASK_QUEUE: h.taskQueue },
  });
  return { ...result, ran };
}

/** Runs it until its output shows what the page says (visibility is a moment behind), then checks its exit. */
async function untilShown(path: string, command: string, shows: (stdout: string) => boolean): Promise<string> {
  let last: (RunResult & { ran: string }) | undefined;
  return until(
    `\`${command}\` (${path}) to show what its page says`,
    async () => {
      last = await asDocumented(path, command);
      expect(last.code, `${last.ran}: ${last.stderr}`).toBe(0);
      return shows(last.stdout) ? last.stdout : undefined;
    },
    60_000,
    1_000,
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}\nlast output of ${last?.ran}:\n${last?.stdout}${last?.stderr}`);
  });
}

const OPERATING = 'docs/operating/README.md';
const BULK = 'docs/operating/bulk-actions.md';

describe("an operator's day, as the pages tell it", () => {
  it('the status screen shows each parked workflow under its reason', async () => {
    await untilShown(OPERATING, 'npx rampflow status', (stdout) =>
      [day.externalId, day.reference].every((id) => stdout.includes(id)),
    );
  });

  it('the parked journey: listed with its reason, shown, counted by the bulk dry run without changing it, then resumed', async () => {
    await untilShown(OPERATING, 'npx rampflow journey list --stage NEEDS_ATTENTION', (stdout) =>
      stdout.split('\n').some((line) => line.includes(day.externalId) && line.includes('Deadline')),
    );
    const status = await asDocumented(OPERATING, 'npx rampflow journey status user-42');
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('NEEDS_ATTENTION');
    const dryRun = await untilShown(
      BULK,
      'npx rampflow journey retry --all --error-type Deadline --dry-run',
      (stdout) => stdout.includes(day.externalId),
    );
    expect(dryRun).toMatch(/^dry run: would retry 1 of .*nothing was changed/m);
    const retried = await asDocumented(OPERATING, 'npx rampflow journey retry user-42');
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stdout).toContain(`journey ${day.externalId} resumed`);
  });

  it('the deposit held for action: found by its stage, shown, and the attachment the service asked for is taken', async () => {
    await untilShown(OPERATING, 'npx rampflow deposit list --stage ACTION_REQUIRED', (stdout) =>
      stdout.includes(day.depositId),
    );
    const shown = await asDocumented(OPERATING, 'npx rampflow deposit status <depositId> --json');
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ stage: 'ACTION_REQUIRED' });
    const attached = await asDocumented(OPERATING, 'npx rampflow deposit attach <depositId> payslip.pdf');
    expect(attached.code, attached.stderr).toBe(0);
    await h.waitForDeposit(day.depositId, (state) => /review the attachment/.test(state.waitingFor));
  });

  it('the payout the balance could not cover: listed with its reason, and counted by the bulk dry run', async () => {
    await untilShown(OPERATING, 'npx rampflow payout list --stage NEEDS_ATTENTION', (stdout) =>
      stdout.split('\n').some((line) => line.includes(day.reference) && line.includes('Refused')),
    );
    await untilShown(BULK, 'npx rampflow payout retry --all --error-type Refused --dry-run', (stdout) =>
      stdout.includes(day.reference),
    );
  });

  it('the failing partner endpoint: its parked stream is listed with the reason, and once it is fixed a resend delivers', async () => {
    const runbook = 'docs/runbooks/RampflowPartnerEventsStopped.md';
    expect(page(runbook)).toContain('`rampflow partner-events parked`');
    await untilShown(runbook, 'rampflow partner-events parked', (stdout) =>
      stdout.split('\n').some((line) => line.startsWith(day.stream) && line.includes('503')),
    );
    events.endpoint.answer({ status: 204 });
    const resent = await asDocumented(runbook, 'rampflow partner-events resend <stream>');
    expect(resent.code, resent.stderr).toBe(0);
    expect(resent.stdout).toContain(`${day.stream}: deliveries to partner resumed`);
    const externalId = day.stream.slice('customer/'.length);
    await until(
      'the resumed stream to reach the endpoint',
      async () => (events.endpoint.eventsOf(externalId).length > 0 ? true : undefined),
      60_000,
      500,
    );
  });
});
