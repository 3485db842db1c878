/**
 * Partner events end to end: a real worker publishes a journey's events as the service establishes
 * them, and a real endpoint on loopback verifies every delivery with the `standardwebhooks` package,
 * the library a partner's own backend would use. What the endpoint does (answers 503, is slow, says
 * 410, fails past the retry period) is scripted; what must hold is that nothing is lost, order is
 * kept per customer, and a retried delivery carries the same webhook-id.
 */
import type { Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createRampflowClient } from '../../client';
import { PartnerEventDeliveries } from '../../client/partner-event-deliveries';
import { PartnerEventSchema, type PartnerEvent } from '../../partner-events/catalogue';
import { customerEventSignal } from '../../workflows/common/messages';
import { partnerEventDeliveryWorkflowId } from '../../workflows/partner-events/messages';
import {
  startActiveJourney,
  startJourneyHarness,
  TEST_AUD_SOURCE,
  type JourneyHarness,
} from '../support/journey-harness';
import { buildPartnerApi } from '../../partner-api/server';
import { startPartnerEvents, type PartnerEventsUnderTest } from '../support/partner-event-wiring';
import { publishingIn } from '../support/partner-events';
import { runRampflow } from '../support/run';
import { temporalAddress, testPayloadKeys } from '../support/temporal';

const API_TOKEN = 'partner-events-test-token-0123456789abcdef';
const JOURNEY_EVENTS = ['journey.kyc_required', 'journey.approved', 'journey.accounts_ready', 'journey.active'];

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function setUp(
  options: Parameters<typeof startPartnerEvents>[0] = {},
): Promise<{ h: JourneyHarness; events: PartnerEventsUnderTest }> {
  const events = await startPartnerEvents(options);
  cleanups.push(() => events.close());
  const h = await startJourneyHarness({}, { partnerEvents: events.wiring });
  cleanups.push(() => h.close());
  return { h, events };
}

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

/** How a run published its events (test/support/partner-events.ts). */
async function publishingOf(handle: {
  fetchHistory(): Promise<{ events?: temporal.api.history.v1.IHistoryEvent[] | null }>;
}) {
  return publishingIn((await handle.fetchHistory()).events ?? []);
}

const typesOf = (events: PartnerEvent[]) => events.map((event) => event.type);
const sequencesOf = (events: PartnerEvent[]) => events.map((event) => event.sequence);
const oneTo = (n: number) => Array.from({ length: n }, (_, index) => index + 1);

describe('partner events', () => {
  it("tells the partner of each step, in order, signed so the partner's own library verifies it, and keeps each for the pull API", async () => {
    const { h, events } = await setUp();
    const { handle, state, virtualAccountId } = await startActiveJourney(h);
    const deposit = await h.control.simulateFiatDeposit({
      virtualAccountId,
      amount: '250.00',
      currency: 'AUD',
      sender: TEST_AUD_SOURCE,
    });
    await h.reconcile();
    await h.control.confirmDeposit(deposit.id);
    const traded = await h.waitForDeposit(deposit.id, (s) => s.tradeId !== undefined);
    await h.control.settleTrade(traded.tradeId!);
    const received = await until('the deposit to complete', () => {
      const seen = events.endpoint.eventsOf(state.externalId);
      return seen.some((event) => event.type === 'deposit.completed') && seen;
    });

    expect(typesOf(received)).toEqual([...JOURNEY_EVENTS, 'deposit.received', 'deposit.completed']);
    expect(sequencesOf(received)).toEqual(oneTo(6));
    expect(events.endpoint.rejected).toBe(0);
    // Each is what the contract's schema says, field for field.
    for (const event of received) expect(PartnerEventSchema.parse(event)).toEqual(event);
    for (const delivery of events.endpoint.accepted) expect(delivery.webhookId).toBe(delivery.event.id);
    const [kyc, , accounts, , depositReceived, completed] = received;
    expect(kyc!.data).toEqual({ kycLink: state.customer.kycLink });
    expect(accounts!.data).toMatchObject({
      virtualAccount: { id: virtualAccountId },
      depositAddress: { id: state.offramp!.depositAddress!.id },
    });
    expect(depositReceived!.data).toEqual({ depositId: deposit.id, kind: 'ONRAMP', amount: '250.00', currency: 'AUD' });
    expect(completed!.data).toMatchObject({ depositId: deposit.id, kind: 'ONRAMP', amount: '250.00', currency: 'AUD' });

    // The store holds exactly what was delivered, in the same order: the pull API's source.
    expect(await events.store.stream(`customer/${state.externalId}`, 0, 100)).toEqual(received);
    // Every batch went out as it was published: no delivery workflow was needed.
    await expect(
      h.client.workflow.getHandle(partnerEventDeliveryWorkflowId(`customer/${state.externalId}`)).describe(),
    ).rejects.toThrow(/not found/i);
    // Every batch was recorded by an activity, none by a local activity (PARTNER_EVENTS_RECORDED_BY_ACTIVITY),
    // and pushed by an activity apart (one push takes every batch recorded while the last was under
    // way): recording never waits for the partner.
    const publishing = await publishingOf(handle);
    expect(publishing.recordings).toBeGreaterThan(0);
    expect(publishing.localRecordings).toBe(0);
    expect(publishing.pushes).toBeGreaterThan(0);
    expect(publishing.pushes).toBeLessThanOrEqual(publishing.recordings);
    await handle.terminate('test over');
  });

  it('records every event for the pull API with no endpoint configured, and pushes nothing: no push per batch', async () => {
    const events = await startPartnerEvents();
    cleanups.push(() => events.close());
    const h = await startJourneyHarness({}, { partnerEvents: { ...events.wiring, endpoints: [] } });
    cleanups.push(() => h.close());
    const { handle, state } = await startActiveJourney(h);

    const recorded = await until("the journey's events to be recorded", async () => {
      const stream = await events.store.stream(`customer/${state.externalId}`, 0, 100);
      return stream.length === JOURNEY_EVENTS.length && stream;
    });
    expect(typesOf(recorded)).toEqual(JOURNEY_EVENTS);
    expect(sequencesOf(recorded)).toEqual(oneTo(JOURNEY_EVENTS.length));
    expect(events.endpoint.accepted).toHaveLength(0);
    const publishing = await publishingOf(handle);
    expect(publishing.recordings).toBeGreaterThan(0);
    expect(publishing).toEqual({ recordings: publishing.recordings, localRecordings: 0, pushes: 0 });
    await handle.terminate('test over');
  });

  it('tells the partner nothing a forged webhook claims: a forged approval only makes the journey read the service', async () => {
    const { h, events } = await setUp();
    const handle = await h.startJourney({});
    const kyc = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC');
    await until('the KYC link to be delivered', () => events.endpoint.eventsOf(kyc.externalId).length === 1);
    // What the receiver sends for a CUSTOMER_APPROVED delivery from someone holding the webhook token:
    // a hint (fromPayload), which makes the journey read the service's record at once.
    const forged = { id: kyc.customer.id!, status: 'APPROVED' };
    await handle.signal(customerEventSignal, {
      key: `CUSTOMER_APPROVED/${forged.id}`,
      event: 'CUSTOMER_APPROVED',
      record: forged,
      fromPayload: true,
    });
    await new Promise((wake) => setTimeout(wake, 2_000));
    expect((await h.waitForJourney(handle, () => true)).stage).toBe('AWAITING_KYC');
    expect(typesOf(events.endpoint.eventsOf(kyc.externalId))).toEqual(['journey.kyc_required']);
    expect(await events.store.stream(`customer/${kyc.externalId}`, 0, 10)).toHaveLength(1);

    // The service's own approval is news the partner hears.
    await h.control.approveCustomer(kyc.customer.id!);
    await until('the approval to be delivered', () =>
      events.endpoint.eventsOf(kyc.externalId).some((event) => event.type === 'journey.approved'),
    );
    await handle.terminate('test over');
  });

  it('retries an endpoint that fails, with the same webhook-id, and delivers everything in order once it answers', async () => {
    const { h, events } = await setUp({ retrySeconds: 300 });
    events.endpoint.answer({ status: 503 });
    const { handle, state } = await startActiveJourney(h);
    // Every event was tried and refused; the first one more than once, always under its own id.
    await until(
      'retries of the first event',
      () => events.endpoint.attempts.filter((id, _, all) => id === all[0]).length >= 3,
    );
    expect(events.endpoint.eventsOf(state.externalId)).toEqual([]);

    events.endpoint.answer({ status: 204 });
    const received = await until('every journey event', () => {
      const seen = events.endpoint.eventsOf(state.externalId);
      return seen.length === JOURNEY_EVENTS.length && seen;
    });
    expect(typesOf(received)).toEqual(JOURNEY_EVENTS);
    expect(sequencesOf(received)).toEqual(oneTo(4));
    // Order held across the retries: no event was accepted before one with a lower sequence.
    expect(events.endpoint.accepted.map((delivery) => delivery.event.sequence)).toEqual(oneTo(4));
    expect(new Set(events.endpoint.attempts)).toEqual(new Set(received.map((event) => event.id)));
    // Caught up, the stream's delivery workflow ends: a quiet customer keeps nothing open.
    const delivery = h.client.workflow.getHandle(partnerEventDeliveryWorkflowId(`customer/${state.externalId}`));
    await until('the delivery workflow to end', async () => (await delivery.describe()).status.name === 'COMPLETED');
    await handle.terminate('test over');
  });

  it('counts a slow answer as a failed attempt and delivers again under the same id', async () => {
    const { h, events } = await setUp({ retrySeconds: 300, timeoutMs: 300 });
    events.endpoint.answer({ status: 204, delayMs: 1_000 });
    const { handle, state } = await startActiveJourney(h);
    await until('a timed-out attempt to be retried', () => events.endpoint.attempts.length >= 2);
    events.endpoint.answer({ status: 204 });
    const received = await until('every journey event', () => {
      const seen = events.endpoint.eventsOf(state.externalId);
      return seen.length === JOURNEY_EVENTS.length && seen;
    });
    expect(typesOf(received)).toEqual(JOURNEY_EVENTS);
    // The slow endpoint did get the first attempt (its answer came too late): the retry repeats its id.
    expect(events.endpoint.accepted.filter((delivery) => delivery.event.id === received[0]!.id).length).toBeGreaterThan(
      1,
    );
    await handle.terminate('test over');
  });

  it('stops delivering to an endpoint that answers 410 Gone; the store keeps every event', async () => {
    const { h, events } = await setUp();
    events.endpoint.answer({ status: 410 });
    const { handle, state } = await startActiveJourney(h);
    await until(
      "the journey's events to be recorded",
      async () => (await events.store.stream(`customer/${state.externalId}`, 0, 100)).length === JOURNEY_EVENTS.length,
    );
    expect(await events.store.disabledEndpoints()).toEqual([expect.objectContaining({ name: 'partner' })]);
    // Only the first event was offered: after the 410 the endpoint was not tried again.
    expect(events.endpoint.attempts).toHaveLength(1);
    await handle.terminate('test over');
  });

  it("parks deliveries after the retry period, holds later events behind them, and an operator's resend delivers them in order", async () => {
    const { h, events } = await setUp({ retrySeconds: 3 });
    events.endpoint.answer({ status: 500 });
    const handle = await h.startJourney({});
    const kyc = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC');
    const stream = `customer/${kyc.externalId}` as const;
    const deliveries = new PartnerEventDeliveries(h.client, h.taskQueue);
    const parked = await until('the deliveries to park', async () =>
      (await deliveries.parked()).find((entry) => entry.stream === stream),
    );
    expect(parked.endpoints).toEqual([
      expect.objectContaining({ name: 'partner', deliveredThrough: 0, reason: 'partner: HTTP 500' }),
    ]);

    // Later events queue behind the parked one: none is delivered ahead of it.
    await h.control.approveCustomer(kyc.customer.id!);
    await until(
      'the later events to be recorded',
      async () => (await events.store.stream(stream, 0, 10)).length === JOURNEY_EVENTS.length,
    );
    await until(
      'the later events to queue',
      async () => (await deliveries.state(stream)).throughSequence === JOURNEY_EVENTS.length,
    );
    expect(events.endpoint.accepted).toEqual([]);

    // Operators see it from the command line, with the last attempt's reason, and resend from there.
    const env = { env: { ...process.env, TEMPORAL_ADDRESS: temporalAddress(), TEMPORAL_TASK_QUEUE: h.taskQueue } };
    const listed = await runRampflow(['partner-events', 'parked'], env);
    expect(listed.stdout).toContain(`${stream} → partner: has #0 of #${JOURNEY_EVENTS.length}`);
    expect(listed.stdout).toContain('partner: HTTP 500');
    expect(listed.stdout).not.toContain(kyc.customer.kycLink!);
    // And the partner API answers the same, for a partner's own tooling.
    const api = buildPartnerApi({
      token: API_TOKEN,
      rampflow: await createRampflowClient({
        connection: h.client.connection as Connection,
        taskQueue: h.taskQueue,
        payloadKeys: testPayloadKeys(),
      }),
      logger: pino({ level: 'silent' }),
    });
    cleanups.push(() => api.close());
    const overHttp = await api.inject({
      method: 'GET',
      url: '/partner-events/parked',
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });
    expect(
      overHttp.json<{ streams: { stream: string; endpoints: { name: string; reason: string }[] }[] }>().streams,
    ).toContainEqual(
      expect.objectContaining({
        stream,
        endpoints: [expect.objectContaining({ name: 'partner', reason: 'partner: HTTP 500' })],
      }),
    );

    events.endpoint.answer({ status: 204 });
    const resent = await runRampflow(['partner-events', 'resend', stream], env);
    expect({ code: resent.code, stdout: resent.stdout }).toEqual({
      code: 0,
      stdout: `${stream}: deliveries to partner resumed\n`,
    });
    const received = await until('every event', () => {
      const seen = events.endpoint.eventsOf(kyc.externalId);
      return seen.length === JOURNEY_EVENTS.length && seen;
    });
    expect(typesOf(received)).toEqual(JOURNEY_EVENTS);
    expect(events.endpoint.accepted.map((delivery) => delivery.event.sequence)).toEqual(oneTo(JOURNEY_EVENTS.length));
    await expect(deliveries.resend(stream)).rejects.toThrow(/no deliveries are parked|not found/);
    expect((await runRampflow(['partner-events', 'resend', 'customer/not a stream'], env)).stderr).toMatch(
      /expected customer\/<externalId> or payout\/<reference>/,
    );
    await handle.terminate('test over');
  });
});
