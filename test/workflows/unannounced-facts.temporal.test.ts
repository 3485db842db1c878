/**
 * Facts no event announces are looked for early (workflows/common/waiting.ts, UNANNOUNCED_FACTS_POLLED_EARLY),
 * with production's timings (a 15-minute poll interval): an AUD onramp is ACTIVE within a minute of
 * its virtual account's approval, though the whitelist that follows has no event; exit accounts the
 * partner registers are found within seconds; a deposit the service holds ACTION_REQUIRED is seen long
 * before the first regular poll; and an attachment sent while the deposit's last read still said
 * RECEIVED reads the deposit before it is refused.
 *
 * Real time throughout, since the point is how soon: the sandbox runs its own clock, registers the
 * whitelisted sender 10 s after it is asked (its default) and delivers webhooks every second (as
 * `rampflow dev` runs it) to a receiver, which wakes the workflows.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerWebhooks } from '../../webhooks/registration';
import { depositWorkflowId } from '../../workflows/common/messages';
import { DEPOSIT_TIMING_DEFAULTS, JOURNEY_TIMING_DEFAULTS } from '../../workflows/common/timings';
import { EARLY_FIRST_POLL_MS } from '../../workflows/common/waiting';
import {
  registerTestExits,
  startActiveJourney,
  startJourneyHarness,
  TEST_AUD_SOURCE,
  TEST_ONRAMP,
  type JourneyHarness,
} from '../support/journey-harness';
import { runRampflow } from '../support/run';
import { temporalAddress } from '../support/temporal';
import { startReceiver, type TestReceiver } from '../webhooks/support/receiver';

const { pollIntervalSeconds, pollBackoffCapSeconds, kycDeadlineSeconds, accountsDeadlineSeconds } =
  JOURNEY_TIMING_DEFAULTS;
const PRODUCTION_JOURNEY_TIMINGS = {
  pollIntervalSeconds,
  pollBackoffCapSeconds,
  kycDeadlineSeconds,
  accountsDeadlineSeconds,
};
/** Production's poll interval, which none of these facts may wait for. */
const POLL_INTERVAL_MS = JOURNEY_TIMING_DEFAULTS.pollIntervalSeconds * 1000;

let h: JourneyHarness;
let receiver: TestReceiver;
beforeAll(async () => {
  // Deposits, whoever starts them (the receiver here), run on production's timings.
  h = await startJourneyHarness(
    { deliveryTickSeconds: 1, audWhitelistDelaySeconds: 10 },
    { depositTimings: DEPOSIT_TIMING_DEFAULTS },
  );
  receiver = await startReceiver({ client: h.client, taskQueue: h.taskQueue, depositTimings: DEPOSIT_TIMING_DEFAULTS });
  await registerWebhooks(h.ramp, { callbackUrl: receiver.webhookUrl, rampBaseUrl: h.sandbox.url });
});
afterAll(async () => {
  await receiver?.close();
  await h?.close();
});

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const historyOf = async (workflowId: string): Promise<HistoryEvent[]> =>
  (await h.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
/** The durations of a history's timers, in seconds, in the order they were started. */
const timersOf = (events: HistoryEvent[]): number[] =>
  events.flatMap((event) =>
    event.timerStartedEventAttributes
      ? [Number(event.timerStartedEventAttributes.startToFireTimeout?.seconds ?? 0)]
      : [],
  );

/** An AUD deposit from the whitelisted sender into an ACTIVE journey's account (a new journey's unless given), once its workflow shows it RECEIVED. */
async function receivedDeposit(into?: string): Promise<{ depositId: string; virtualAccountId: string }> {
  const virtualAccountId = into ?? (await startActiveJourney(h)).virtualAccountId;
  const deposit = await h.control.simulateFiatDeposit({
    virtualAccountId,
    amount: '75.00',
    currency: 'AUD',
    sender: TEST_AUD_SOURCE,
  });
  // DEPOSIT_RECEIVED reaches the receiver, which starts the deposit's workflow.
  await h.waitForDeposit(deposit.id, (s) => s.stage === 'RECEIVED');
  return { depositId: deposit.id, virtualAccountId };
}

describe('a fact no event announces, with production timings', () => {
  it('an AUD onramp is ACTIVE within a minute of its approval: the whitelist wait polls after 5 s, then 10 s, ...', async () => {
    const handle = await h.startJourney({ onramp: TEST_ONRAMP, timings: PRODUCTION_JOURNEY_TIMINGS });
    const kyc = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC');
    await registerTestExits(h.control, kyc.customer.id!);
    await h.control.approveCustomer(kyc.customer.id!);
    const accounts = await h.waitForJourney(
      handle,
      (s) => s.stage === 'AWAITING_ACCOUNTS' && !!s.onramp?.virtualAccount,
    );

    await h.control.approveVirtualAccount(accounts.onramp!.virtualAccount!.id);
    const approvedAt = Date.now();
    await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_ACCOUNTS' && /whitelist/.test(s.waitingFor));
    // The first poll of a 15-minute interval would come 15 minutes from now.
    const active = await h.waitForJourney(handle, (s) => s.stage === 'ACTIVE', 60_000);
    expect(Date.now() - approvedAt).toBeLessThan(60_000);
    expect(active.onramp?.whitelisted).toBe(true);
    // The whitelist wait's pauses start at 5 s and double; the waits with an event keep the interval.
    const timers = timersOf(await historyOf(handle.workflowId));
    expect(timers).toContain(EARLY_FIRST_POLL_MS / 1000);
    expect(timers.filter((seconds) => seconds < EARLY_FIRST_POLL_MS / 1000)).toEqual([]);
    expect(timers).toContain(POLL_INTERVAL_MS / 1000);
    await handle.terminate('test over');
  }, 180_000);

  it('exit accounts the partner registers after the journey began waiting for them (no event) are found within seconds', async () => {
    const handle = await h.startJourney({ onramp: TEST_ONRAMP, timings: PRODUCTION_JOURNEY_TIMINGS });
    const kyc = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC');
    await h.control.approveCustomer(kyc.customer.id!);
    await h.waitForJourney(handle, (s) => s.stage === 'SETTING_UP_RAMPS' && s.waitingFor.includes('register'));
    await registerTestExits(h.control, kyc.customer.id!);
    const registeredAt = Date.now();
    await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_ACCOUNTS', 60_000);
    expect(Date.now() - registeredAt).toBeLessThan(60_000);
    await handle.terminate('test over');
  }, 180_000);

  it('a deposit the service holds ACTION_REQUIRED (no event) is seen within seconds, not at the first poll', async () => {
    const { depositId } = await receivedDeposit();
    await h.control.requireDepositAction(depositId);
    const heldAt = Date.now();
    const held = await h.waitForDeposit(depositId, (s) => s.stage === 'ACTION_REQUIRED', 120_000);
    expect(held.waitingFor).toMatch(/submit the attachment/);
    expect(Date.now() - heldAt).toBeLessThan(POLL_INTERVAL_MS / 5);
    await h.client.workflow.getHandle(depositWorkflowId(depositId)).terminate('test over');
  }, 240_000);

  it("`deposit attach` reads the deposit before refusing: the service held it after the workflow's last read", async () => {
    const { depositId, virtualAccountId } = await receivedDeposit();
    const deposit = h.client.workflow.getHandle(depositWorkflowId(depositId));
    // Once the wait has polled at 5 s and 15 s and set its next pause to 20 s, no poll comes for a while:
    // what the service does now the workflow learns only by reading it.
    for (const deadline = Date.now() + 60_000; !timersOf(await historyOf(deposit.workflowId)).includes(20);) {
      if (Date.now() > deadline) throw new Error("the deposit's wait never set a 20 s pause");
      await new Promise((wake) => setTimeout(wake, 200));
    }
    await h.control.requireDepositAction(depositId);
    expect((await h.waitForDeposit(depositId, () => true)).stage).toBe('RECEIVED');

    const file = join(mkdtempSync(join(tmpdir(), 'rampflow-attach-')), 'payslip.pdf');
    writeFileSync(file, '%PDF-1.4 payslip');
    const env = { ...process.env, TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_TASK_QUEUE: h.taskQueue };
    const attached = await runRampflow(['deposit', 'attach', depositId, file], { env });
    expect(attached.stderr).toBe('');
    expect(attached.stdout).toBe(`deposit ${depositId}: payslip.pdf submitted to the service\n`);
    expect((await h.waitForDeposit(depositId, (s) => /review the attachment/.test(s.waitingFor))).stage).toBe(
      'ACTION_REQUIRED',
    );

    // A deposit the service did not hold is still refused, after the read, with the service's word.
    const { depositId: otherId } = await receivedDeposit(virtualAccountId);
    const refused = await runRampflow(['deposit', 'attach', otherId, file], { env });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'the deposit is RECEIVED, not ACTION_REQUIRED: the service asked for no attachment (read from the service just now)',
    );
    await deposit.terminate('test over');
    await h.client.workflow.getHandle(depositWorkflowId(otherId)).terminate('test over');
  }, 240_000);
});
