/**
 * A customer's whole life (issue: bounded journeys, deposits that stand on their own): money for a
 * customer whose journey has ended is surfaced, parked journeys still hear closes and late facts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { depositLifecycle } from '../../workflows/deposit/workflow';
import {
  closeCustomerUpdate,
  customerEventSignal,
  depositStateQuery,
  depositWorkflowId,
  retryUpdate,
} from '../../workflows/common/messages';
import {
  type JourneyHarness,
  startActiveJourney,
  startJourneyHarness,
  TEST_AUD_SOURCE,
} from '../support/journey-harness';
import { eventually } from '../webhooks/support/receiver';

let h: JourneyHarness;
beforeAll(async () => {
  h = await startJourneyHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('a deposit for a customer rampflow no longer serves', () => {
  it('gets its workflow, parks with the reason, is listed by stage, and an operator can still see it through', async () => {
    const { handle, state, virtualAccountId } = await startActiveJourney(h);
    await handle.executeUpdate(closeCustomerUpdate, { args: [{ reason: 'the customer left' }] });
    expect(await handle.result()).toEqual({ stage: 'CLOSED', reason: 'the customer left' });

    // The customer pays in all the same.
    const deposit = await h.control.simulateFiatDeposit({
      virtualAccountId,
      amount: '60.00',
      currency: 'AUD',
      sender: TEST_AUD_SOURCE,
    });
    await h.reconcile();
    const depositHandle = h.client.workflow.getHandle<typeof depositLifecycle>(depositWorkflowId(deposit.id));
    const parked = await eventually(
      () => depositHandle.query(depositStateQuery),
      (s) => s.stage === 'NEEDS_ATTENTION',
      'the deposit parked',
    );
    expect(parked.attention).toMatchObject({ stage: 'RECEIVED', errorType: 'CustomerNotServed' });
    expect(parked.attention!.reason).toMatch(`journey customer/${state.externalId} is not running`);
    expect(
      await h.listWorkflowIds(
        `WorkflowType = 'depositLifecycle' AND RampStage = 'NEEDS_ATTENTION' AND RampExternalId = '${state.externalId}'`,
      ),
    ).toEqual([depositWorkflowId(deposit.id)]);

    // An operator decides to see it through anyway.
    await depositHandle.executeUpdate(retryUpdate, { args: [{}] });
    await h.control.confirmDeposit(deposit.id);
    const traded = await eventually(
      () => depositHandle.query(depositStateQuery),
      (s) => s.tradeId !== undefined,
      'the trade',
    );
    await h.control.settleTrade(traded.tradeId!);
    expect(await depositHandle.result()).toMatchObject({ stage: 'COMPLETED' });
  });
});

describe("a deposit whose customer rampflow's index does not hold", () => {
  it("finds its journey from the service's record of the customer", async () => {
    const { handle, state, virtualAccountId } = await startActiveJourney(h);
    await handle.executeUpdate(closeCustomerUpdate, { args: [{ reason: 'the customer left' }] });
    await handle.result();
    // Gone from visibility too (past retention, say): the index has no journey for this customer.
    await h.client.workflowService.deleteWorkflowExecution({
      namespace: h.client.options.namespace,
      workflowExecution: { workflowId: handle.workflowId },
    });
    await eventually(
      () => h.client.workflow.count(`RampCustomerId = '${state.customer.id}'`),
      (counted) => counted.count === 0,
      'the journey to leave visibility',
      // The dev server deletes in the background: half a minute on a quiet machine, longer beside the suite.
      150_000,
    );

    const deposit = await h.control.simulateFiatDeposit({
      virtualAccountId,
      amount: '25.00',
      currency: 'AUD',
      sender: TEST_AUD_SOURCE,
    });
    await h.reconcile();
    const depositHandle = h.client.workflow.getHandle<typeof depositLifecycle>(depositWorkflowId(deposit.id));
    const parked = await eventually(
      () => depositHandle.query(depositStateQuery),
      (s) => s.stage === 'NEEDS_ATTENTION',
      'the deposit parked',
    );
    // The service named the customer's externalId, so the deposit knows whose it is, and that the journey has ended.
    expect(parked.attention).toMatchObject({ stage: 'RECEIVED', errorType: 'CustomerNotServed' });
    expect(parked.attention!.reason).toMatch(`journey customer/${state.externalId} is not running`);
    // The index was asked in the deposit's first look (and held no journey), the service by an
    // activity (on the service queue); no local activity asked the index again.
    const events = (await depositHandle.fetchHistory()).events ?? [];
    const activities = events.flatMap((event) =>
      event.activityTaskScheduledEventAttributes
        ? [event.activityTaskScheduledEventAttributes.activityType!.name!]
        : [],
    );
    expect(activities.slice(0, 2)).toEqual(['firstLookAtDeposit', 'findCustomerExternalId']);
    expect(events.filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toEqual(
      [],
    );
  }, 240_000);
});

describe('a parked journey', () => {
  it('ends at once on closeCustomer, and a later retry is refused', async () => {
    const handle = await h.startJourney({ timings: { kycDeadlineSeconds: 1, pollIntervalSeconds: 3600 } });
    await h.waitForJourney(handle, (s) => s.stage === 'NEEDS_ATTENTION');
    await handle.executeUpdate(closeCustomerUpdate, { args: [{ reason: 'account closed' }] });
    expect(await handle.result()).toEqual({ stage: 'CLOSED', reason: 'account closed' });
    await expect(handle.executeUpdate(retryUpdate, { args: [{}] })).rejects.toThrow();
  });

  it('ends at once when the service deletes the customer', async () => {
    const handle = await h.startJourney({ timings: { kycDeadlineSeconds: 1 } });
    const parked = await h.waitForJourney(handle, (s) => s.stage === 'NEEDS_ATTENTION');
    await h.control.deleteCustomer(parked.customer.id!);
    expect(await handle.result()).toEqual({ stage: 'CLOSED', reason: 'the service deleted the customer' });
  });

  it('resumes by itself when the KYC approval arrives after the deadline (event)', async () => {
    // Polls an hour apart: only the event can move it.
    const handle = await h.startJourney({ timings: { kycDeadlineSeconds: 1, pollIntervalSeconds: 3600 } });
    const parked = await h.waitForJourney(handle, (s) => s.stage === 'NEEDS_ATTENTION');
    expect(parked.attention).toMatchObject({ stage: 'AWAITING_KYC', errorType: 'Deadline' });
    await handle.signal(customerEventSignal, {
      key: `CUSTOMER_APPROVED/${parked.customer.id}`,
      event: 'CUSTOMER_APPROVED',
      record: { id: parked.customer.id!, status: 'APPROVED' },
    });
    const resumed = await h.waitForJourney(handle, (s) => s.stage === 'ACTIVE');
    expect(resumed.attention).toBeUndefined();
    await handle.terminate('test over');
  });

  it('resumes by itself when a later look at the service shows the approval', async () => {
    const handle = await h.startJourney({ timings: { kycDeadlineSeconds: 1 } });
    const parked = await h.waitForJourney(handle, (s) => s.stage === 'NEEDS_ATTENTION');
    await h.control.approveCustomer(parked.customer.id!);
    await h.waitForJourney(handle, (s) => s.stage === 'ACTIVE');
    await handle.terminate('test over');
  });
});
