/**
 * Journeys driven by the service's real webhooks: the sandbox delivers to the receiver over loopback,
 * the receiver signals each event's target itself (direct routing) or hands it to a ramp-event
 * workflow. The journeys poll only once an hour, so everything that moves them here is an event.
 *
 * The sandbox's clock is frozen; advancing it runs the delivery scheduler, and `advance` resolves once
 * every delivery it ran has been answered (and the receiver answers only after Temporal accepted the
 * start). Every event is delivered twice (`duplicateDeliveries`) and, subscribed under both names,
 * under its older name as well; deliveries due together go newest first (`outOfOrderDeliveries`).
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_NAMES, LEGACY_EVENT_NAMES } from '../../ramp/events';
import { registerWebhooks } from '../../webhooks/registration';
import { shownDeposit } from '../../workflows/journey/board';
import {
  depositStateQuery,
  journeyStateQuery,
  type DepositSummary,
  type JourneyState,
} from '../../workflows/common/messages';
import type { RampEventResult } from '../../workflows/ramp-event/events';
import { payment as paymentFixture } from '../ramp/support/records';
import { startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import {
  deliveriesOf,
  depositReportsTaken,
  signalsReceived,
  startReceiver,
  workflowExists,
  type TestReceiver,
} from './support/receiver';

const BANK_ACCOUNT_NO = '987654321';
const OFFRAMP = { currency: 'USDT', network: 'ETH', bankAccount: { accountNo: BANK_ACCOUNT_NO } };
/** Only events move these journeys: their polls are an hour apart, their deadlines far away. */
const EVENTS_ONLY = {
  pollIntervalSeconds: 3600,
  kycDeadlineSeconds: 86_400,
  accountsDeadlineSeconds: 86_400,
};
const SENDER = { address: '0x0000000000000000000000000000000000000001', network: 'ETH' };

let h: JourneyHarness;
/** Deposits, whoever starts them, move by events only here: their polls are an hour apart. */
const EVENTS_ONLY_DEPOSITS = { pollIntervalSeconds: 3600, stepDeadlineSeconds: 86_400 };
let receiver: TestReceiver;
/** A second receiver that hands every delivery to a ramp-event workflow, whose events give up on an unconfirmed claim after two seconds. */
let impatient: TestReceiver;

beforeAll(async () => {
  h = await startJourneyHarness(
    { clock: { frozen: true }, duplicateDeliveries: true, outOfOrderDeliveries: true },
    { depositTimings: EVENTS_ONLY_DEPOSITS },
  );
  receiver = await startReceiver({ client: h.client, taskQueue: h.taskQueue, depositTimings: EVENTS_ONLY_DEPOSITS });
  impatient = await startReceiver({
    client: h.client,
    taskQueue: h.taskQueue,
    depositTimings: EVENTS_ONLY_DEPOSITS,
    routing: 'workflow',
    eventTimings: { targetWaitSeconds: 2, firstRetrySeconds: 0.5, maxRetrySeconds: 1, notFoundGraceSeconds: 1 },
  });
  await registerWebhooks(h.ramp, { callbackUrl: receiver.webhookUrl, rampBaseUrl: h.sandbox.url });
  // Subscribed under both names, as a partner mid-migration might be: every event comes twice more.
  await h.ramp.subscribedEvents.set([...EVENT_NAMES, ...Object.keys(LEGACY_EVENT_NAMES)]);
});
afterAll(async () => {
  await impatient?.close();
  await receiver?.close();
  await h?.close();
});

/** Runs the sandbox's delivery scheduler once. */
const deliver = () => h.sandbox.clock.advance(60);

const depositOf = (state: JourneyState, id: string): DepositSummary | undefined => shownDeposit(state.deposits, id);

/** A journey with a USDT offramp, driven by events to ACTIVE; returns it with its customer and deposit address. */
async function activeOfframpJourney(): Promise<{
  handle: WorkflowHandle;
  customerId: string;
  depositAddressId: string;
}> {
  const handle = await h.startJourney({ offramp: OFFRAMP, timings: EVENTS_ONLY });
  let state = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC');
  const customerId = state.customer.id!;
  await h.control.registerBankAccount({
    customerId,
    currency: 'AUD',
    bankName: 'Test Bank',
    accountNo: BANK_ACCOUNT_NO,
    swift: 'TESTAU2S',
  });
  await h.control.approveCustomer(customerId);
  await deliver();
  state = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_ACCOUNTS' && !!s.offramp?.depositAddress);
  const depositAddressId = state.offramp!.depositAddress!.id;
  await h.control.approveDepositAddress(depositAddressId);
  await deliver();
  await h.waitForJourney(handle, (s) => s.stage === 'ACTIVE');
  return { handle, customerId, depositAddressId };
}

async function tradeOf(depositId: string): Promise<{ id: string; paymentId?: string }> {
  for await (const item of h.ramp.trades.iterate({ pageSize: 100 })) {
    const trade = await h.ramp.trades.detail({ id: item.id });
    if (trade.deposit.id === depositId)
      return { id: trade.id, ...(typeof trade.paymentId === 'string' ? { paymentId: trade.paymentId } : {}) };
  }
  throw new Error(`no trade for deposit ${depositId}`);
}

describe('a journey driven by webhooks', () => {
  it('goes from KYC to a paid-out deposit on events alone, each event applied once however often it is delivered', async () => {
    const { handle, customerId, depositAddressId } = await activeOfframpJourney();

    // CUSTOMER_APPROVED came four times (two names, each twice), routed straight to the journey; a
    // fifth copy now, as a late retry would.
    expect(await workflowExists(h.client, `event/CUSTOMER_APPROVED/${customerId}`)).toBe(false);
    const customer = await h.ramp.customers.detail({ id: customerId });
    expect((await receiver.post({ event: 'CUSTOMER_APPROVED', payload: customer })).body).toContain('duplicate');
    const log = await deliveriesOf(h.ramp, customerId);
    const attempts = log.flatMap((delivery) =>
      delivery.attempts.map((attempt) => `${delivery.event}:${attempt.httpStatus}`),
    );
    expect(attempts.sort()).toEqual([
      'CUSTOMER_APPROVED:200',
      'CUSTOMER_APPROVED:200',
      'user.approved:200',
      'user.approved:200',
    ]);
    // One event, one signal to the journey.
    expect((await signalsReceived(handle)).filter((signal) => signal.name === 'customerEvent')).toEqual([
      { name: 'customerEvent', key: `CUSTOMER_APPROVED/${customerId}` },
    ]);

    // The money: received, confirmed, traded, paid out, each step announced by an event. The journey
    // hears when the deposit opens and when it ends; the steps between are the deposit's own.
    const deposit = await h.control.simulateCryptoDeposit({
      depositAddressId,
      amount: '50.00',
      currency: 'USDT',
      sender: SENDER,
    });
    await deliver();
    await h.waitForJourney(handle, (s) => depositOf(s, deposit.id)?.stage === 'RECEIVED');
    await h.control.confirmDeposit(deposit.id);
    await deliver(); // DEPOSIT_APPROVED and TRADE_CREATED
    const trade = await tradeOf(deposit.id);
    await h.waitForDeposit(deposit.id, (s) => s.stage === 'TRADE_CREATED');
    await h.control.settleTrade(trade.id);
    await deliver();
    await h.waitForDeposit(deposit.id, (s) => s.stage === 'TRADE_SETTLED');
    await h.control.settlePayment((await tradeOf(deposit.id)).paymentId!);
    await deliver();
    const state = await h.waitForJourney(handle, (s) => depositOf(s, deposit.id)?.stage === 'COMPLETED');
    expect(depositOf(state, deposit.id)).toMatchObject({ kind: 'OFFRAMP', tradeId: trade.id });
    // Two reports reached the journey for the deposit's six stages (by update): it opened, it ended.
    expect(await depositReportsTaken(handle)).toHaveLength(2);

    // The deposit's workflow heard each of its events once.
    const depositSignals = await signalsReceived(h.client.workflow.getHandle(`deposit/${deposit.id}`));
    expect(
      depositSignals
        .filter((signal) => signal.name !== 'depositProgress')
        .map((signal) => signal.key?.split('/')[0])
        .sort(),
    ).toEqual(['DEPOSIT_APPROVED', 'DEPOSIT_RECEIVED', 'PAYMENT_SETTLED', 'TRADE_CREATED', 'TRADE_SETTLED']);
  });

  it("ends in the right state when a deposit's events arrive newest first", async () => {
    const { handle, depositAddressId } = await activeOfframpJourney();
    // Everything happens at the service before a single event is delivered...
    const deposit = await h.control.simulateCryptoDeposit({
      depositAddressId,
      amount: '75.00',
      currency: 'USDT',
      sender: SENDER,
    });
    await h.control.confirmDeposit(deposit.id);
    await h.control.settleTrade((await tradeOf(deposit.id)).id);
    const trade = await tradeOf(deposit.id);
    await h.control.settlePayment(trade.paymentId!);
    // ...then one scheduler run delivers PAYMENT_SETTLED first and DEPOSIT_RECEIVED last. The first
    // event to arrive starts the deposit's workflow (signal-with-start); none waits for another.
    await deliver();
    const payment = (await h.client.workflow
      .getHandle(`event/PAYMENT_SETTLED/${trade.paymentId}`)
      .result()) as RampEventResult;
    expect(payment).toMatchObject({ outcome: 'ROUTED', target: `deposit/${deposit.id}` });
    const state = await h.waitForJourney(handle, (s) => depositOf(s, deposit.id)?.stage === 'COMPLETED');
    expect(depositOf(state, deposit.id)).toMatchObject({
      kind: 'OFFRAMP',
      currency: 'USDT',
      paymentId: trade.paymentId,
      stage: 'COMPLETED',
    });
  });

  it('completes no deposit on a forged payload: a hint is read from the service, never taken', async () => {
    const { handle, depositAddressId } = await activeOfframpJourney();
    const deposit = await h.control.simulateCryptoDeposit({
      depositAddressId,
      amount: '20.00',
      currency: 'USDT',
      sender: SENDER,
    });
    await h.control.confirmDeposit(deposit.id);
    await deliver(); // DEPOSIT_RECEIVED, DEPOSIT_APPROVED, TRADE_CREATED, routed directly
    const real = await h.ramp.trades.detail({ id: (await tradeOf(deposit.id)).id });
    await h.waitForDeposit(deposit.id, (s) => s.stage === 'TRADE_CREATED');

    // Forged: the trade settled and paid out, while the service has not settled it.
    expect(real.status).not.toBe('SETTLED');
    expect((await receiver.post({ event: 'TRADE_SETTLED', payload: { ...real, status: 'SETTLED' } })).status).toBe(200);
    const forgedPayment = { ...paymentFixture, id: randomUUID(), reference: real.id };
    expect((await receiver.post({ event: 'PAYMENT_SETTLED', payload: forgedPayment })).status).toBe(200);
    // The deposit read the trade the hint named and found it unsettled; the payment, which names no
    // deposit, went to the ramp-event workflow, which found no such payment and dismissed it.
    const paymentEvent = h.client.workflow.getHandle(`event/PAYMENT_SETTLED/${forgedPayment.id}`);
    expect(await paymentEvent.result()).toMatchObject({ outcome: 'DISMISSED' });
    const depositHistory = await h.client.workflow.getHandle(`deposit/${deposit.id}`).fetchHistory();
    const reads = depositHistory.events!.filter(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'getTrade',
    );
    expect(reads.length).toBeGreaterThanOrEqual(2); // the TRADE_CREATED hint, then the forged TRADE_SETTLED
    expect(await h.client.workflow.getHandle(`deposit/${deposit.id}`).query(depositStateQuery)).toMatchObject({
      stage: 'TRADE_CREATED',
      tradeId: real.id,
    });
    expect(depositOf(await handle.query(journeyStateQuery), deposit.id)?.stage).toBe('RECEIVED');
  });

  it("confirms nothing on a spoofed payload: the service's record wins", async () => {
    const { handle, depositAddressId } = await activeOfframpJourney();
    const deposit = await h.control.simulateCryptoDeposit({
      depositAddressId,
      amount: '10.00',
      currency: 'USDT',
      sender: SENDER,
    });
    await deliver();
    await h.waitForJourney(handle, (s) => depositOf(s, deposit.id)?.stage === 'RECEIVED');

    // A forged DEPOSIT_APPROVED claiming CONFIRMED for a deposit the service still has RECEIVED.
    const real = await h.ramp.deposits.detail({ id: deposit.id });
    expect(real.status).toBe('RECEIVED');
    expect(
      (await impatient.post({ event: 'DEPOSIT_APPROVED', payload: { ...real, status: 'CONFIRMED' } })).status,
    ).toBe(200);
    const forged = h.client.workflow.getHandle(`event/DEPOSIT_APPROVED/${deposit.id}`);
    // Never confirmed within its wait, the claim is dismissed: nothing is left parked for an operator.
    expect(await forged.result()).toMatchObject({
      outcome: 'DISMISSED',
      serviceStatus: 'RECEIVED',
      hintDisagreed: ['status'],
    });
    // It signalled no one, and the deposit is where the service says it is.
    const forgedHistory = await forged.fetchHistory();
    expect(
      forgedHistory.events!.filter((event) => event.signalExternalWorkflowExecutionInitiatedEventAttributes),
    ).toEqual([]);
    expect((await h.client.workflow.getHandle(`deposit/${deposit.id}`).query(depositStateQuery)).stage).toBe(
      'RECEIVED',
    );

    // An event for a record the service does not have is dismissed: nothing waits, nothing parks.
    const ghost = randomUUID();
    expect(
      (await impatient.post({ event: 'DEPOSIT_APPROVED', payload: { ...real, id: ghost, status: 'CONFIRMED' } }))
        .status,
    ).toBe(200);
    expect(await h.client.workflow.getHandle(`event/DEPOSIT_APPROVED/${ghost}`).result()).toMatchObject({
      outcome: 'DISMISSED',
    });
    expect((await h.client.workflow.getHandle(`deposit/${deposit.id}`).query(depositStateQuery)).stage).toBe(
      'RECEIVED',
    );
  });
});
