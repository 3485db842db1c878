/**
 * `rampflow payout ...` as a user runs it: a child process against the shared dev server, with the
 * harness's worker and the sandbox as the service.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayoutState } from '../../workflows/payout/messages';
import { payoutStateQuery, payoutWorkflowId } from '../../workflows/payout/messages';
import { startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { runRampflow, type RunResult } from '../support/run';
import { temporalAddress } from '../support/temporal';
import { until } from '../support/until';

let h: JourneyHarness;
let bankAccountId: string;

beforeAll(async () => {
  h = await startJourneyHarness();
  const { id: customerId } = await h.ramp.customers.create({
    externalId: `payee-${randomUUID()}`,
    realName: 'Ada Lovelace',
    email: 'ada@example.com',
  });
  ({ id: bankAccountId } = (await h.ramp.bankAccounts.add({
    customerId: customerId!,
    currency: 'AUD',
    bankName: 'Test Bank',
    accountNo: '11223344',
    swift: 'TESTAU2S',
    beneficiaryName: 'Ada Lovelace',
  })) as { id: string });
}, 120_000);

afterAll(async () => {
  await h?.close();
});

function rampflow(...args: string[]): Promise<RunResult> {
  return runRampflow(args, {
    env: { ...process.env, TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_TASK_QUEUE: h.taskQueue },
  });
}

async function stateOf(reference: string, accept: (state: PayoutState) => boolean): Promise<PayoutState> {
  const handle = h.client.workflow.getHandle(payoutWorkflowId(reference));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const state = await handle.query(payoutStateQuery);
    if (accept(state) || Date.now() > deadline) return state;
    await new Promise((wake) => setTimeout(wake, 200));
  }
}

describe('rampflow payout', () => {
  it('create parks a payout the balance cannot cover, status shows the service words, retry pays it once topped up', async () => {
    const reference = `cli-${randomUUID()}`;
    const created = await rampflow(
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
    );
    expect(created.stderr).toBe('');
    expect((JSON.parse(created.stdout) as PayoutState).reference).toBe(reference);
    expect((await stateOf(reference, (s) => s.stage === 'NEEDS_ATTENTION')).stage).toBe('NEEDS_ATTENTION');

    const status = await rampflow('payout', 'status', reference);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`payout ${reference}: NEEDS_ATTENTION`);
    expect(status.stdout).toContain('FAILED: insufficient USDT balance: 0.000000 available, 65.000000 needed');

    await h.control.creditBalance({ currency: 'USDT', amount: '65' });
    const retried = await rampflow('payout', 'retry', reference);
    expect(retried.stdout).toBe(`payout ${reference} resumed\n`);
    const waiting = await stateOf(reference, (s) => s.stage === 'AWAITING_SETTLEMENT');
    expect(waiting).toMatchObject({ stage: 'AWAITING_SETTLEMENT', receivedAmount: '100.00', receivedCurrency: 'AUD' });

    // Nothing to cancel while it is not parked; the refusal says why, on one line.
    const cancel = await rampflow('payout', 'cancel', reference);
    expect(cancel.code).toBe(1);
    expect(cancel.stderr).toMatch(/^rampflow: cancel refused by payout .*not in NEEDS_ATTENTION\n$/);
  });

  it('create --wait returns when the payout parks, exit 2 with the reason; list shows it parked with the reason, retry --all resumes it', async () => {
    const reference = `cli-wait-${randomUUID()}`;
    // More than any test tops the balance up with: it parks at once.
    const amount = '7777777';
    const created = await runRampflow(
      [
        'payout',
        'create',
        '--reference',
        reference,
        '--bank-account',
        bankAccountId,
        '--currency',
        'USDC',
        '--amount',
        amount,
        '--wait',
      ],
      {
        env: { ...process.env, TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_TASK_QUEUE: h.taskQueue },
        timeoutMs: 45_000,
      },
    );
    expect(created.code).toBe(2);
    expect(created.stdout).toContain(`payout ${reference}: NEEDS_ATTENTION`);
    expect(created.stderr).toMatch(
      new RegExp(
        `^rampflow: payout ${reference} parked in NEEDS_ATTENTION: .*insufficient USDC balance: [\\d.]+ available, 7777777\\.000000 needed\n$`,
      ),
    );

    const listed = await until(
      'visibility to index the parked payout',
      async () => {
        const result = await rampflow('payout', 'list', '--stage', 'NEEDS_ATTENTION', '--limit', '1000');
        return result.stdout.includes(reference) ? result : undefined;
      },
      30_000,
      500,
    );
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^REFERENCE +STAGE +STATUS +STARTED +PARKED BECAUSE\n/);
    expect(listed.stdout).toMatch(
      new RegExp(
        `\\n${reference} +NEEDS_ATTENTION +RUNNING +\\S+ +Refused: .*insufficient USDC balance: [\\d.]+ available, 7777777\\.000000 needed\\n`,
      ),
    );

    // status: the whole reason, not one cut at 100 characters.
    const reason = (await stateOf(reference, () => true)).attention!.reason;
    expect(reason.length).toBeGreaterThan(100);
    const status = await rampflow('status');
    expect(status.stdout).toContain(`      e.g. ${reason}\n`);

    const dry = await rampflow('payout', 'retry', '--all', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^dry run: would retry \d+ of \d+ payouts? at NEEDS_ATTENTION; nothing was changed\n/);
    expect(dry.stdout).toContain(`  ${reference}\n`);
    expect((await stateOf(reference, () => true)).stage).toBe('NEEDS_ATTENTION');

    await h.control.creditBalance({ currency: 'USDC', amount });
    const retried = await rampflow('payout', 'retry', '--all', '--error-type', 'Refused');
    expect(retried.code).toBe(0);
    expect(retried.stdout).toMatch(
      /^retried [1-9]\d* of \d+ payouts? at NEEDS_ATTENTION with error type Refused; refused 0 \(moved on meanwhile\), failed 0, skipped 0\n$/,
    );
    expect((await stateOf(reference, (s) => s.stage === 'AWAITING_SETTLEMENT')).stage).toBe('AWAITING_SETTLEMENT');
  });

  it('refuses bad flags naming the field, before reaching Temporal', async () => {
    const result = await rampflow(
      'payout',
      'create',
      '--reference',
      'has space',
      '--bank-account',
      bankAccountId,
      '--currency',
      'USDT',
      '--amount',
      '1',
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('reference: must be 1 to 64 letters');
  });
});
