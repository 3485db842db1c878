/**
 * Payouts from the partner's balance (`payout/<reference>`) on the real dev server against the
 * sandbox: created and settled, a duplicate start, an outcome-unknown create that must not pay twice,
 * and a short balance that parks with the service's own words until an operator retries.
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PayoutClient } from '../../client/payouts';
import { payoutStateQuery, type PayoutState } from '../../workflows/payout/messages';
import { startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { startReceiver } from '../webhooks/support/receiver';

let h: JourneyHarness;
let payouts: PayoutClient;
let bankAccountId: string;

/** Outcome-unknown creates look up again after a second here (production: a minute). */
const OUTCOME_UNKNOWN_RETRY_DELAY_MS = 1_000;
const FAST = { pollIntervalSeconds: 1, settlementDeadlineSeconds: 120 };

beforeAll(async () => {
  h = await startJourneyHarness({}, { outcomeUnknownRetryDelayMs: OUTCOME_UNKNOWN_RETRY_DELAY_MS });
  payouts = new PayoutClient(h.client, h.taskQueue);
  const { id: customerId } = await h.ramp.customers.create({
    externalId: `payee-${randomUUID()}`,
    realName: 'Ada Lovelace',
    email: 'ada@example.com',
  });
  await h.control.approveCustomer(customerId!);
  ({ id: bankAccountId } = (await h.ramp.bankAccounts.add({
    customerId: customerId!,
    currency: 'GBP',
    bankName: 'Barclays',
    accountNo: '20000012345678',
    swift: 'BARCGB22',
    beneficiaryName: 'Ada Lovelace',
  })) as { id: string });
}, 120_000);

afterAll(async () => {
  await h?.close();
});

async function until(
  handle: WorkflowHandle,
  accept: (state: PayoutState) => boolean,
  timeoutMs = 60_000,
): Promise<PayoutState> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await handle.query(payoutStateQuery);
    if (accept(state)) return state;
    if (Date.now() > deadline)
      throw new Error(`the payout never reached the expected state; last:\n${JSON.stringify(state, null, 2)}`);
    await new Promise((wake) => setTimeout(wake, 100));
  }
}

const paymentsWith = async (reference: string) => (await h.ramp.payments.list({ reference })).list;

describe('a payout from the partner balance', () => {
  it('creates the payment once, settles, and a duplicate start returns the same payout', async () => {
    await h.control.creditBalance({ currency: 'USDT', amount: '127' });
    const reference = `po-${randomUUID()}`;
    const handle = await payouts.start({
      reference,
      bankAccountId,
      deductCurrency: 'USDT',
      deductAmount: '127',
      timings: FAST,
    });
    const waiting = await until(handle, (state) => state.stage === 'AWAITING_SETTLEMENT');
    expect(waiting).toMatchObject({ paymentStatus: 'PENDING', receivedAmount: '100.00', receivedCurrency: 'GBP' });

    const again = await payouts.start({
      reference,
      bankAccountId,
      deductCurrency: 'USDT',
      deductAmount: '999',
      timings: FAST,
    });
    expect(again.workflowId).toBe(`payout/${reference}`);
    expect((await again.describe()).runId).toBe((await handle.describe()).runId);

    await h.control.settlePayment(waiting.paymentId!);
    expect(await handle.result()).toMatchObject({
      stage: 'SETTLED',
      paymentId: waiting.paymentId,
      paymentStatus: 'CONFIRMED',
    });
    // Finished, the same reference is still the same payout: nothing new is started or paid.
    const afterwards = await payouts.start({
      reference,
      bankAccountId,
      deductCurrency: 'USDT',
      deductAmount: '127',
      timings: FAST,
    });
    expect((await afterwards.describe()).runId).toBe((await handle.describe()).runId);
    expect(await paymentsWith(reference)).toHaveLength(1);
  });

  it('resolves an outcome-unknown create by looking the payment up, and pays once', async () => {
    await h.control.creditBalance({ currency: 'USDT', amount: '10' });
    // The service acts on the request, then answers 503: the client cannot know the payment exists.
    await h.control.injectFault({ path: '/payment/create', kind: 'HTTP_5XX', afterHandling: true });
    const reference = `po-${randomUUID()}`;
    const handle = await payouts.start({
      reference,
      bankAccountId,
      deductCurrency: 'USDT',
      deductAmount: '10',
      timings: FAST,
    });
    const waiting = await until(handle, (state) => state.stage === 'AWAITING_SETTLEMENT');
    expect(await h.control.pendingFaults()).toEqual([]);
    expect((await paymentsWith(reference)).map((payment) => payment.id)).toEqual([waiting.paymentId]);
    await h.control.settlePayment(waiting.paymentId!);
    expect((await handle.result()).stage).toBe('SETTLED');
    expect(await paymentsWith(reference)).toHaveLength(1);
  });

  it('parks a payout the balance cannot cover with the service words, and an operator retry pays it once topped up', async () => {
    const reference = `po-${randomUUID()}`;
    const handle = await payouts.start({
      reference,
      bankAccountId,
      deductCurrency: 'USDC',
      deductAmount: '40',
      timings: FAST,
    });
    const parked = await until(handle, (state) => state.stage === 'NEEDS_ATTENTION');
    expect(parked.attention?.reason).toContain(
      'FAILED: insufficient USDC balance: 0.000000 available, 40.000000 needed',
    );
    expect(parked.attention?.errorType).toBe('Refused');
    expect(await paymentsWith(reference)).toHaveLength(0);

    await h.control.creditBalance({ currency: 'USDC', amount: '40' });
    await payouts.retry(reference);
    const waiting = await until(handle, (state) => state.stage === 'AWAITING_SETTLEMENT');
    await h.control.settlePayment(waiting.paymentId!);
    expect((await handle.result()).stage).toBe('SETTLED');
    expect(await paymentsWith(reference)).toHaveLength(1);
  });

  it('is woken by PAYMENT_SETTLED through the receiver, without waiting for a poll', async () => {
    await h.control.creditBalance({ currency: 'USDT', amount: '5' });
    const reference = `po-${randomUUID()}`;
    // Polls an hour apart: only the event can settle it within the test.
    const handle = await payouts.start({
      reference,
      bankAccountId,
      deductCurrency: 'USDT',
      deductAmount: '5',
      timings: { pollIntervalSeconds: 3600, settlementDeadlineSeconds: 7200 },
    });
    const waiting = await until(handle, (state) => state.stage === 'AWAITING_SETTLEMENT');
    await h.control.settlePayment(waiting.paymentId!);
    const receiver = await startReceiver({ client: h.client, taskQueue: h.taskQueue });
    try {
      expect((await receiver.post({ event: 'PAYMENT_SETTLED', payload: { id: waiting.paymentId } })).status).toBe(200);
      expect((await handle.result()).stage).toBe('SETTLED');
      const routed = await h.client.workflow.getHandle(`event/PAYMENT_SETTLED/${waiting.paymentId!}`).result();
      expect(routed).toMatchObject({ outcome: 'ROUTED', target: `payout/${reference}` });
    } finally {
      await receiver.close();
    }
  });

  it('refuses a bad request before it reaches Temporal', async () => {
    await expect(
      payouts.start({ reference: 'has space', bankAccountId, deductCurrency: 'USDT', deductAmount: '-1' }),
    ).rejects.toThrow(/reference: .*deductAmount: /);
  });
});
