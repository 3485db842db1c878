/**
 * Events lost for good (the receiver was unreachable for every attempt) are repaired by the
 * reconciliation workflow, which pages the service's customer, deposit and trade lists and signals
 * the workflows that lag. The workflows here poll only once an hour, so only reconciliation can move
 * them. Also: the reconciliation schedule is created and updated idempotently.
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../dev/ports';
import { ensureReconcileSchedule } from '../../webhooks/reconcile-schedule';
import { registerWebhooks } from '../../webhooks/registration';
import type { depositLifecycle } from '../../workflows';
import { type DepositStage, depositStateQuery, depositWorkflowId } from '../../workflows/common/messages';
import { JourneyTimingsSchema } from '../../workflows/schemas';
import type { ReconcileResult } from '../../workflows/reconcile/types';
import { RampStage } from '../../observability/search-attributes';
import { type JourneyHarness, registerTestExits, startJourneyHarness, TEST_OFFRAMP } from '../support/journey-harness';
import { deliveriesOf, eventually } from './support/receiver';

const HOURLY_POLLS = JourneyTimingsSchema.parse({ pollIntervalSeconds: 3600, kycDeadlineSeconds: 86_400 });

let h: JourneyHarness;
beforeAll(async () => {
  h = await startJourneyHarness(
    { clock: { frozen: true } },
    { depositTimings: { pollIntervalSeconds: 3600, stepDeadlineSeconds: 86_400 } },
  );
  // The receiver is down for good: every delivery attempt is refused.
  await registerWebhooks(h.ramp, {
    callbackUrl: `http://127.0.0.1:${await freePort()}/webhooks/ramp/receiver-that-is-down`,
    rampBaseUrl: h.sandbox.url,
  });
});
afterAll(async () => {
  await h?.close();
});

const reconcile = (): Promise<ReconcileResult> => h.reconcile();

/** Reconciliation reads stages through visibility, which trails the workflows a little: wait for it to show `stage` (or one of them). */
async function visibleAt(workflowId: string, stage: string | string[]): Promise<void> {
  const stages = [stage].flat();
  await eventually(
    async () => {
      for await (const workflow of h.client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
        return workflow.typedSearchAttributes.get(RampStage);
      return undefined;
    },
    (seen) => seen !== undefined && stages.includes(seen),
    `${workflowId} visible at ${stages.join(' or ')}`,
  );
}

async function depositAt(handle: WorkflowHandle, stage: DepositStage): Promise<void> {
  await eventually(
    () => handle.query(depositStateQuery),
    (state) => state.stage === stage,
    `deposit at ${stage}`,
  );
}

describe('reconciliation', () => {
  it('repairs a journey whose KYC approval was never delivered', async () => {
    const handle = await h.startJourney({ timings: HOURLY_POLLS });
    const state = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC');
    const customerId = state.customer.id!;
    await h.control.approveCustomer(customerId);
    // Every attempt of the service's retry policy fails: 1 min, +10 min, +1 h, +1 day, +1 week.
    for (const seconds of [60, 600, 3600, 86_400, 604_800]) await h.sandbox.clock.advance(seconds);
    const [delivery] = await deliveriesOf(h.ramp, customerId);
    expect(delivery).toMatchObject({ event: 'CUSTOMER_APPROVED', status: 'FAILED' });
    expect(delivery!.attempts).toHaveLength(5);

    await visibleAt(handle.workflowId, 'AWAITING_KYC');
    const result = await reconcile();
    expect(result.repaired).toBeGreaterThanOrEqual(1);
    expect(result.truncated).toBe(false);
    await h.waitForJourney(handle, (s) => s.stage === 'ACTIVE');
    // A second run finds nothing left to repair for this journey.
    await visibleAt(handle.workflowId, 'ACTIVE');
    expect((await reconcile()).repaired).toBe(0);
    await handle.terminate('test over');
  });

  it('starts the workflow of a deposit no event announced, then repairs its lost confirmation, trade, settlement, payout and refund, the refund once', async () => {
    // An ACTIVE offramp journey (its own polls are fast; its deposits' polls are an hour apart).
    const journey = await h.startJourney({ offramp: TEST_OFFRAMP });
    const kyc = await h.waitForJourney(journey, (s) => s.stage === 'AWAITING_KYC');
    await registerTestExits(h.control, kyc.customer.id!);
    await h.control.approveCustomer(kyc.customer.id!);
    const accounts = await h.waitForJourney(journey, (s) => s.offramp?.depositAddress !== undefined);
    const depositAddressId = accounts.offramp!.depositAddress!.id;
    await h.control.approveDepositAddress(depositAddressId);
    await h.waitForJourney(journey, (s) => s.stage === 'ACTIVE');
    const simulated = await h.control.simulateCryptoDeposit({
      depositAddressId,
      amount: '20.00',
      currency: 'USDT',
      sender: { address: '0x0000000000000000000000000000000000000002', network: 'ETH' },
    });

    // No event will ever come: reconciliation starts the deposit's workflow.
    const workflowId = depositWorkflowId(simulated.id);
    expect((await reconcile()).repaired).toBeGreaterThanOrEqual(1);
    const handle = h.client.workflow.getHandle<typeof depositLifecycle>(workflowId);
    await depositAt(handle, 'RECEIVED');
    await h.waitForJourney(journey, (s) => s.deposits.open.some((d) => d.depositId === simulated.id));

    // Confirmed (and a trade made) at the service; nothing is delivered. A RECEIVED deposit reads
    // itself within seconds (ACTION_REQUIRED comes with no event, so that wait polls early) and may
    // find its confirmation first; the trade, whose wait polls hourly, only the pass brings.
    await h.control.confirmDeposit(simulated.id);
    await visibleAt(workflowId, ['RECEIVED', 'CONFIRMED']);
    expect((await reconcile()).repaired).toBeGreaterThanOrEqual(1); // the trade (and the confirmation, if not read yet)
    await depositAt(handle, 'TRADE_CREATED');

    const { tradeId } = await handle.query(depositStateQuery);
    await h.control.settleTrade(tradeId!);
    await visibleAt(workflowId, 'TRADE_CREATED');
    expect((await reconcile()).repaired).toBeGreaterThanOrEqual(1);
    await depositAt(handle, 'TRADE_SETTLED');

    const trade = await h.ramp.trades.detail({ id: tradeId! });
    await h.control.settlePayment(trade.paymentId as string);
    await visibleAt(workflowId, 'TRADE_SETTLED');
    expect((await reconcile()).repaired).toBeGreaterThanOrEqual(1);
    expect(await handle.result()).toMatchObject({ stage: 'COMPLETED' });
    await h.waitForJourney(journey, (s) => s.deposits.byStage.COMPLETED === 1);
    // A finished deposit is not started again by a later pass.
    await visibleAt(workflowId, 'COMPLETED');
    await reconcile();
    expect((await handle.describe()).status.name).toBe('COMPLETED');

    // Refunded after completion, its DEPOSIT_REJECTED lost: a pass starts the run that reports the reversal...
    await h.control.refundDeposit(simulated.id);
    expect((await reconcile()).repaired).toBeGreaterThanOrEqual(1);
    expect(await handle.result()).toMatchObject({ stage: 'REVERSED' });
    await h.waitForJourney(
      journey,
      (s) => s.deposits.byStage.REVERSED === 1 && s.deposits.byStage.COMPLETED === undefined,
    );
    // ...once: later full passes see the reversal (the newest run), not the completed run before it.
    await visibleAt(workflowId, 'REVERSED');
    expect(await reconcile()).toMatchObject({ repaired: 0, missed: 0 });
    await journey.terminate('test over');
  });

  it('keeps one schedule, created once and updated after', async () => {
    const scheduleId = `reconcile-test-${randomUUID()}`;
    expect(await ensureReconcileSchedule(h.client, { scheduleId, taskQueue: h.taskQueue, intervalSeconds: 3600 })).toBe(
      'created',
    );
    expect(await ensureReconcileSchedule(h.client, { scheduleId, taskQueue: h.taskQueue, intervalSeconds: 1800 })).toBe(
      'updated',
    );
    const schedule = h.client.schedule.getHandle(scheduleId);
    try {
      const description = await schedule.describe();
      expect(description.spec.intervals?.map((interval) => interval.every)).toEqual([1_800_000]);
      expect(description.action).toMatchObject({
        type: 'startWorkflow',
        workflowType: 'reconcileWithService',
        taskQueue: h.taskQueue,
      });
      expect(description.policies.overlap).toBe('SKIP');
    } finally {
      await schedule.delete();
    }
  });
});
