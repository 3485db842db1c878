/**
 * A partner event stream outlives the workflow runs that write it: a journey closed and removed at
 * retention whose customer signs up again under the same externalId, a payout reference used again
 * after its payout was removed, a journey an operator reset to before its events. Each new run numbers on after what the store already holds, so the
 * partner sees one gap-free sequence per stream, and the new run publishes, reaches its stages and
 * ends (before, the store refused its sequence 1 as held and the run could never end). A reset run
 * emits the facts it establishes again under the ids they had, so the partner hears each once.
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PartnerEvent } from '../../partner-events/catalogue';
import { cancelUpdate, closeCustomerUpdate } from '../../workflows/common/messages';
import type { payout } from '../../workflows/payout/workflow';
import { payoutStateQuery, payoutWorkflowId, type PayoutInput } from '../../workflows/payout/messages';
import { startActiveJourney, startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { startPartnerEvents, type PartnerEventsUnderTest } from '../support/partner-event-wiring';

let h: JourneyHarness;
let events: PartnerEventsUnderTest;

beforeAll(async () => {
  events = await startPartnerEvents();
  h = await startJourneyHarness({}, { partnerEvents: events.wiring });
});
afterAll(async () => {
  await h?.close();
  await events?.close();
});

type Nothing = false | undefined | null;
async function until<T>(what: string, look: () => T | Nothing | Promise<T | Nothing>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const seen = await look();
    if (seen) return seen;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((wake) => setTimeout(wake, 100));
  }
}

/** Removed as retention removes a closed workflow; gone once describing it finds nothing. */
async function deleteWorkflow(handle: WorkflowHandle): Promise<void> {
  await h.client.workflowService.deleteWorkflowExecution({
    namespace: h.client.options.namespace,
    workflowExecution: { workflowId: handle.workflowId },
  });
  await until('the workflow to be deleted', () =>
    handle.describe().then(
      () => false,
      () => true,
    ),
  );
}

const sequencesOf = (stream: PartnerEvent[]) => stream.map((event) => event.sequence);
const oneTo = (n: number) => Array.from({ length: n }, (_, index) => index + 1);

describe('a partner event stream across runs', () => {
  it('a customer signed up again after their journey was deleted: the new journey publishes, reaches its stages and ends, and the stream stays one gap-free sequence', async () => {
    const first = await startActiveJourney(h);
    const { externalId } = first.state;
    const stream = `customer/${externalId}` as const;
    await first.handle.executeUpdate(closeCustomerUpdate, { args: [{ reason: 'the customer left' }] });
    expect(await first.handle.result()).toMatchObject({ stage: 'CLOSED' });
    const firstRun = await events.store.stream(stream, 0, 100);
    expect(firstRun.map((event) => event.type).at(-1)).toBe('journey.closed');
    await deleteWorkflow(first.handle);

    const again = await h.startJourney({ customer: { externalId } });
    await h.waitForJourney(again, (state) => state.stage === 'ACTIVE' || state.stage === 'AWAITING_ACCOUNTS');
    await again.executeUpdate(closeCustomerUpdate, { args: [{ reason: 'the customer left again' }] });
    const recorded = await until("the new journey's events to be recorded after the first's", async () => {
      const held = await events.store.stream(stream, 0, 100);
      return held.filter((event) => event.type === 'journey.closed').length === 2 && held;
    });
    expect(await again.result()).toMatchObject({ stage: 'CLOSED' });

    expect(recorded.slice(0, firstRun.length)).toEqual(firstRun);
    expect(sequencesOf(recorded)).toEqual(oneTo(recorded.length));
    expect(recorded.length).toBeGreaterThan(firstRun.length + 1);
    // The partner got both runs' events, in one order.
    const delivered = await until('every event to reach the endpoint', () => {
      const seen = events.endpoint.eventsOf(externalId);
      return seen.length === recorded.length && seen;
    });
    expect(sequencesOf(delivered)).toEqual(oneTo(recorded.length));
    expect(delivered.map((event) => event.id)).toEqual(recorded.map((event) => event.id));
  });

  it("a payout reference used again after its payout was deleted: the new payout publishes and ends, its event numbered after the first's", async () => {
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
    const reference = `again-${randomUUID().slice(0, 8)}`;
    const input: PayoutInput = { reference, bankAccountId, deductCurrency: 'USDT', deductAmount: '65' };
    const stream = `payout/${reference}` as const;

    // The balance cannot cover it: the payout parks, and an operator cancels it (payout.failed).
    async function payOutAndCancel(): Promise<WorkflowHandle<typeof payout>> {
      const handle = await h.client.workflow.start<typeof payout>('payout', {
        taskQueue: h.taskQueue,
        workflowId: payoutWorkflowId(reference),
        args: [input],
      });
      await until('the payout to park', async () => (await handle.query(payoutStateQuery)).stage === 'NEEDS_ATTENTION');
      await handle.executeUpdate(cancelUpdate, { args: [{ reason: 'not covered' }] });
      return handle;
    }

    const first = await payOutAndCancel();
    expect(await first.result()).toMatchObject({ stage: 'CANCELLED' });
    await deleteWorkflow(first);

    const again = await payOutAndCancel();
    const recorded = await until("the second payout's event to be recorded", async () => {
      const held = await events.store.stream(stream, 0, 10);
      return held.length === 2 && held;
    });
    expect(await again.result()).toMatchObject({ stage: 'CANCELLED' });
    expect(recorded.map((event) => event.type)).toEqual(['payout.failed', 'payout.failed']);
    expect(sequencesOf(recorded)).toEqual([1, 2]);
  });

  it('a journey reset to its first workflow task: the new run does its stages again, the partner hears each fact once, and the stream stays one gap-free sequence', async () => {
    const first = await startActiveJourney(h);
    const { externalId } = first.state;
    const stream = `customer/${externalId}` as const;
    const before = await until("the first run's events to be recorded, through becoming active", async () => {
      const held = await events.store.stream(stream, 0, 100);
      return held.some((event) => event.type === 'journey.active') && held;
    });
    const history = (await first.handle.fetchHistory()).events ?? [];
    const firstTask = history.find((event) => event.workflowTaskCompletedEventAttributes)!;
    const { runId } = await h.client.workflowService.resetWorkflowExecution({
      namespace: h.client.options.namespace,
      workflowExecution: { workflowId: first.handle.workflowId },
      workflowTaskFinishEventId: firstTask.eventId,
      reason: 'a test resets the journey to before its events',
      requestId: randomUUID(),
    });
    const reset = h.client.workflow.getHandle(first.handle.workflowId, runId ?? undefined);
    await h.waitForJourney(reset, (state) => state.stage === 'ACTIVE');
    await reset.executeUpdate(closeCustomerUpdate, { args: [{ reason: 'the customer left' }] });
    expect(await reset.result()).toMatchObject({ stage: 'CLOSED' });

    const recorded = await until("the reset run's events to be recorded after the first run's", async () => {
      const held = await events.store.stream(stream, 0, 100);
      return held.some((event) => event.type === 'journey.closed') && held;
    });
    expect(recorded.slice(0, before.length)).toEqual(before);
    // The reset run read the approval, the accounts and the activation again and emitted them again,
    // under the ids they had: the store held them, so they were dropped. Only what is new follows.
    expect(before.map((event) => event.type)).toEqual(
      expect.arrayContaining(['journey.approved', 'journey.accounts_ready', 'journey.active']),
    );
    expect(recorded.slice(before.length).map((event) => event.type)).toEqual(['journey.closed']);
    expect(sequencesOf(recorded)).toEqual(oneTo(recorded.length));
    // Every event reaches the partner, the old run's included: the reset may have ended that run
    // between recording its last events and pushing them, and the reset run pushes them again (0.x code
    // before `earlier-runs-events-pushed` lost them about one run in four here).
    const delivered = await until(
      'every event to reach the endpoint',
      () => {
        const seen = events.endpoint.eventsOf(externalId);
        return seen.length === recorded.length && seen;
      },
      60_000,
    );
    expect(delivered.map((event) => event.id)).toEqual(recorded.map((event) => event.id));
  });
});
