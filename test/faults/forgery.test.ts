/**
 * Forgery: someone who holds the webhook path token (it leaks through proxy logs, the service's
 * dashboard, a support ticket) posts deliveries of their own to the receiver on its default routing.
 * Two customers A and B are ACTIVE; A's deposits have completed; the receiver then restarts (as on
 * every deploy), so it remembers nothing; then come the forgeries the trust rule (workflows/common/trust.ts)
 * must turn away: a made-up deposit, a real trade re-pointed at a made-up deposit, a real payment
 * re-pointed at another customer's trade, a forged approval while a journey creates its customer, a
 * forged account approval with another account number, and a forged claim that B belongs to A. After
 * each, what the workflows show and count is what the service says, and at the end the fault suite's
 * ledger (the service's records against the journeys' states) holds.
 *
 * The sandbox's clock is frozen and only the case moves the service (no autopilot); advancing the
 * clock a minute runs the service's delivery scheduler once.
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DepositState,
  depositStateQuery,
  depositWorkflowId,
  type JourneyState,
  journeyWorkflowId,
} from '../../workflows/common/messages';
import type { RampEventResult } from '../../workflows/ramp-event/events';
import { registerTestExits } from '../support/test-journeys';
import { EVENTS_ONLY_DEPOSIT_TIMINGS, EVENTS_ONLY_TIMINGS } from './support/events-only';
import { type FaultStack, startFaultStack } from './support/fault-stack';
import { type InProcessWorker, startInProcessWorker } from './support/in-process-worker';
import { type JourneyBatch, startJourneys } from './support/journeys';
import { findProblems } from './support/ledger';
import { OFFRAMP_AMOUNT, ONRAMP_AMOUNT, Partner, USD_RAMPS } from './support/partner';
import { startTemporalOnFile } from './support/temporal-on-file';
import { pause, until } from './support/until';

/** Events only, and a deposit the service does not have is dismissed after a second, not a minute. */
const DEPOSIT_TIMINGS = { ...EVENTS_ONLY_DEPOSIT_TIMINGS, notFoundGraceSeconds: 1 };
const CRYPTO_SENDER = { address: '0x0000000000000000000000000000000000000001', network: 'ETH' };
const USD_SENDER = { accountNumber: '12345678', accountName: 'Ada Lovelace' };

let stack: FaultStack;
let worker: InProcessWorker | undefined;
let batch: JourneyBatch;
let partner: Partner;
const [A, B] = ['forgery-0', 'forgery-1'];
/** Two more customers, whose onboarding the forgeries try to skip. */
const [C, D] = ['forgery-c', 'forgery-d'];
/** The service's customer ids of A and B. */
const customerIds: Record<string, string> = {};

beforeAll(async () => {
  stack = await startFaultStack({ clock: { frozen: true } }, startTemporalOnFile, DEPOSIT_TIMINGS);
  worker = await startInProcessWorker({
    temporalAddress: stack.temporal.address,
    taskQueue: stack.taskQueue,
    ramp: stack.service.ramp,
    depositTimings: DEPOSIT_TIMINGS,
  });
});
afterAll(async () => {
  await worker?.stop();
  await stack?.close();
});

const deliver = () => stack.service.sandbox.clock.advance(60);
const journey = (externalId: string): Promise<JourneyState> => batch.rampflow.getJourney(externalId);
const depositState = (id: string): Promise<DepositState> =>
  stack.client.workflow.getHandle(depositWorkflowId(id)).query(depositStateQuery);

/** Posts a delivery to the receiver's real URL, as a holder of the token would. */
async function forge(event: string, payload: unknown): Promise<void> {
  const response = await request(stack.receiver.webhookUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ event, payload }),
  });
  await response.body.text();
  expect(response.statusCode).toBe(200);
}

async function waitForJourney(
  externalId: string,
  accept: (state: JourneyState) => boolean,
  what: string,
): Promise<JourneyState> {
  return until(
    what,
    async () => {
      const state = await journey(externalId);
      return accept(state) ? state : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, describe: async () => JSON.stringify(await journey(externalId)) },
  );
}

async function waitForDeposit(
  id: string,
  accept: (state: DepositState) => boolean,
  what: string,
): Promise<DepositState> {
  return until(
    what,
    async () => {
      const state = await depositState(id).catch(() => undefined);
      return state && accept(state) ? state : undefined;
    },
    {
      timeoutMs: 60_000,
      intervalMs: 200,
      describe: async () => JSON.stringify(await depositState(id).catch((error: unknown) => String(error))),
    },
  );
}

/** A workflow's result, or undefined if it has not finished within the time given. */
async function resultWithin(workflowId: string, timeoutMs: number): Promise<unknown> {
  const handle = stack.client.workflow.getHandle(workflowId);
  return Promise.race([handle.result(), pause(timeoutMs).then(() => undefined)]);
}

/**
 * Waits until every activity the workflow scheduled has finished and a signal named `signal` carrying
 * `key` is in its history: the forged delivery has been taken and every read it caused is done.
 */
async function settledAfter(handle: WorkflowHandle, what: string, signal: string): Promise<void> {
  await until(
    what,
    async () => {
      const events = (await handle.fetchHistory()).events ?? [];
      const signalled = events.some((event) => event.workflowExecutionSignaledEventAttributes?.signalName === signal);
      const scheduled = events.filter((event) => event.activityTaskScheduledEventAttributes).length;
      const finished = events.filter(
        (event) => event.activityTaskCompletedEventAttributes || event.activityTaskFailedEventAttributes,
      ).length;
      return signalled && scheduled === finished ? true : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  await pause(300); // a workflow task the last activity's completion started
}

async function tradeOf(depositId: string): Promise<Record<string, unknown> & { id: string; paymentId?: string }> {
  for await (const item of stack.service.ramp.trades.iterate({ pageSize: 100 })) {
    const trade = await stack.service.ramp.trades.detail({ id: item.id });
    if (trade.deposit.id === depositId) return trade;
  }
  throw new Error(`no trade for deposit ${depositId}`);
}

async function receivingAccounts(externalId: string): Promise<{ virtualAccountId: string; depositAddressId: string }> {
  const state = await journey(externalId);
  return { virtualAccountId: state.onramp!.virtualAccount!.id, depositAddressId: state.offramp!.depositAddress!.id };
}

/** What the two customers' real money left behind, for the cases to forge from and compare with. */
interface Scene {
  aOnramp: string;
  aOfframp: string;
  aPaymentId: string;
  bOnramp: string;
  bAccounts: { virtualAccountId: string; depositAddressId: string };
  aBefore: JourneyState;
}
let scene: Scene;
/** B's offramp deposit, made after the forged ownership claim. */
let bOfframp: string;
const shownOf = (state: JourneyState) => ({
  totals: state.deposits.completedTotals,
  byStage: state.deposits.byStage,
  recent: state.deposits.recent.map((d) => d.depositId),
});

describe('forged deliveries from someone who holds the webhook token', () => {
  it("sets the scene: A and B ACTIVE, A's money completed and B's on its way, on real events; then the receiver restarts", async () => {
    const { service, receiver } = stack;
    const { control } = service;
    partner = new Partner(service, new Set([A, B]), USD_RAMPS);
    for (const externalId of [A, B]) await partner.signUp(externalId);
    batch = await startJourneys({
      connection: stack.connection,
      taskQueue: stack.taskQueue,
      prefix: 'forgery',
      count: 2,
      ramps: USD_RAMPS,
      timings: EVENTS_ONLY_TIMINGS,
    });
    for (const externalId of [A, B]) {
      const state = await waitForJourney(
        externalId,
        (s) => s.stage === 'AWAITING_KYC',
        `${externalId} waiting for KYC`,
      );
      customerIds[externalId] = state.customer.id!;
      await control.approveCustomer(state.customer.id!);
    }
    await deliver();
    for (const externalId of [A, B]) {
      const state = await waitForJourney(
        externalId,
        (s) => s.stage === 'AWAITING_ACCOUNTS' && !!s.onramp?.virtualAccount && !!s.offramp?.depositAddress,
        `${externalId} awaiting its accounts`,
      );
      await control.approveVirtualAccount(state.onramp!.virtualAccount!.id);
      await control.approveDepositAddress(state.offramp!.depositAddress!.id);
    }
    await deliver();
    for (const externalId of [A, B])
      await waitForJourney(externalId, (s) => s.stage === 'ACTIVE', `${externalId} ACTIVE`);

    // A pays in both ways, and both deposits complete on the service's real events.
    const aAccounts = await receivingAccounts(A);
    const aOnramp = (
      await control.simulateFiatDeposit({
        virtualAccountId: aAccounts.virtualAccountId,
        amount: ONRAMP_AMOUNT,
        currency: 'USD',
        sender: USD_SENDER,
      })
    ).id;
    const aOfframp = (
      await control.simulateCryptoDeposit({
        depositAddressId: aAccounts.depositAddressId,
        amount: OFFRAMP_AMOUNT,
        currency: 'USDT',
        sender: CRYPTO_SENDER,
      })
    ).id;
    partner.deposits.set(customerIds[A]!, { onramp: aOnramp, offramp: aOfframp });
    for (const id of [aOnramp, aOfframp]) await control.confirmDeposit(id);
    for (const id of [aOnramp, aOfframp]) await control.settleTrade((await tradeOf(id)).id);
    const aPaymentId = (await tradeOf(aOfframp)).paymentId!;
    await control.settlePayment(aPaymentId);
    await deliver();
    for (const id of [aOnramp, aOfframp])
      await waitForDeposit(id, (s) => s.stage === 'COMPLETED', `A's deposit ${id} COMPLETED`);
    const aBefore = await waitForJourney(
      A,
      (s) => s.deposits.byStage.COMPLETED === 2,
      "A's journey showing both deposits completed",
    );

    // B pays in one way; its deposit is confirmed and traded, the trade not settled yet.
    const bAccounts = await receivingAccounts(B);
    const bOnramp = (
      await control.simulateFiatDeposit({
        virtualAccountId: bAccounts.virtualAccountId,
        amount: ONRAMP_AMOUNT,
        currency: 'USD',
        sender: USD_SENDER,
      })
    ).id;
    await control.confirmDeposit(bOnramp);
    await deliver();
    await waitForDeposit(bOnramp, (s) => s.stage === 'TRADE_CREATED', "B's onramp deposit TRADE_CREATED");

    // Every deploy restarts the receiver: it remembers nothing of the events above.
    await receiver.stop();
    await receiver.start();
    scene = { aOnramp, aOfframp, aPaymentId, bOnramp, bAccounts, aBefore };
  });

  it("a made-up deposit of a million, named as A's: read from the service, found absent, dismissed", async () => {
    const aDeposit = await stack.service.ramp.deposits.detail({ id: scene.aOnramp });
    const madeUp = randomUUID();
    await forge('DEPOSIT_APPROVED', {
      ...aDeposit,
      id: madeUp,
      amount: '1000000.00',
      status: 'CONFIRMED',
      txid: randomUUID(),
    });
    expect(await resultWithin(depositWorkflowId(madeUp), 20_000)).toMatchObject({ stage: 'DISMISSED' });
    expect(shownOf(await journey(A))).toEqual(shownOf(scene.aBefore));
  });

  it("A's real trade re-pointed at a made-up deposit: nothing completes, nothing is counted", async () => {
    const aDeposit = await stack.service.ramp.deposits.detail({ id: scene.aOnramp });
    const aTrade = await tradeOf(scene.aOnramp);
    const madeUp = randomUUID();
    await forge('DEPOSIT_APPROVED', {
      ...aDeposit,
      id: madeUp,
      amount: '1000000.00',
      status: 'CONFIRMED',
      txid: randomUUID(),
    });
    await forge('TRADE_SETTLED', {
      ...aTrade,
      deposit: { id: madeUp, currency: aDeposit.currency, amount: '1000000.00' },
      fromAmount: '1000000.00',
    });
    const outcome = await resultWithin(depositWorkflowId(madeUp), 20_000);
    expect(outcome).not.toMatchObject({ stage: 'COMPLETED' });
    expect(shownOf(await journey(A))).toEqual(shownOf(scene.aBefore));
    expect(outcome).toMatchObject({ stage: 'DISMISSED' });
  });

  it("a forged claim that B belongs to A (B's real approval, A's externalId written in): B's next deposit is B's alone", async () => {
    const { control, ramp } = stack.service;
    const bCustomer = await ramp.customers.detail({ id: customerIds[B]! });
    await forge('CUSTOMER_APPROVED', { ...bCustomer, externalId: A });
    await settledAfter(
      stack.client.workflow.getHandle(journeyWorkflowId(A)),
      "A's journey taking the forged approval",
      'customerEvent',
    );
    bOfframp = (
      await control.simulateCryptoDeposit({
        depositAddressId: scene.bAccounts.depositAddressId,
        amount: OFFRAMP_AMOUNT,
        currency: 'USDT',
        sender: CRYPTO_SENDER,
      })
    ).id;
    partner.deposits.set(customerIds[B]!, { onramp: scene.bOnramp, offramp: bOfframp });
    await deliver();
    await waitForJourney(
      B,
      (s) => [...s.deposits.open, ...s.deposits.recent].some((d) => d.depositId === bOfframp),
      "B's journey hearing of B's new deposit",
    );
    const a = await journey(A);
    expect([...a.deposits.open, ...a.deposits.recent].map((d) => d.depositId)).not.toContain(bOfframp);
    expect(shownOf(a)).toEqual(shownOf(scene.aBefore));
    expect(a.customer.id).toBe(customerIds[A]);
  });

  it("A's real payment re-pointed at B's settled trade: B's deposit still waits for its own payout", async () => {
    const { control, ramp } = stack.service;
    await control.confirmDeposit(bOfframp);
    const bTrade = await tradeOf(bOfframp);
    await control.settleTrade(bTrade.id);
    await deliver();
    await waitForDeposit(bOfframp, (s) => s.stage === 'TRADE_SETTLED', "B's offramp deposit waiting for its payout");
    const aPayment = await ramp.payments.detail({ id: scene.aPaymentId });
    await forge('PAYMENT_SETTLED', { ...aPayment, reference: bTrade.id });
    // A payment names no deposit: the ramp-event workflow reads it, and the service says it pays A's trade.
    expect(await resultWithin(`event/PAYMENT_SETTLED/${scene.aPaymentId}`, 20_000)).toMatchObject({
      target: depositWorkflowId(scene.aOfframp),
    } satisfies Partial<RampEventResult>);
    await pause(1000);
    const b = await depositState(bOfframp);
    expect(b).toMatchObject({ stage: 'TRADE_SETTLED', tradeId: bTrade.id });
    expect(b.paymentId).not.toBe(scene.aPaymentId);
  });

  it("a forged approval while a journey still creates its customer: the journey waits for the service's own decision", async () => {
    const { control, ramp } = stack.service;
    await control.injectFault({ path: '/customer/create', kind: 'DELAY', delayMs: 3000, count: 1 });
    await batch.rampflow.startJourney({
      customer: { externalId: C, realName: 'Ada Lovelace', email: 'ada@example.com' },
      ...USD_RAMPS,
      timings: EVENTS_ONLY_TIMINGS,
    });
    await waitForJourney(C, (s) => s.stage === 'CREATING_CUSTOMER', 'C creating its customer');
    await forge('CUSTOMER_APPROVED', {
      id: randomUUID(),
      externalId: C,
      realName: 'Ada Lovelace',
      email: 'ada@example.com',
      status: 'APPROVED',
    });
    await waitForJourney(C, (s) => s.stage !== 'CREATING_CUSTOMER', 'C past CREATING_CUSTOMER');
    await settledAfter(
      stack.client.workflow.getHandle(journeyWorkflowId(C)),
      'C taking the forged approval',
      'customerEvent',
    );
    const customer = await ramp.customers.detail({ externalId: C });
    expect(customer.status).not.toBe('APPROVED');
    expect(await journey(C)).toMatchObject({
      stage: 'AWAITING_KYC',
      customer: { id: customer.id, status: customer.status },
    });
  });

  it("a forged VIRTUAL_ACCOUNT_APPROVED with another account number: users are told only the service's account details", async () => {
    const { control, ramp } = stack.service;
    await batch.rampflow.startJourney({
      customer: { externalId: D, realName: 'Ada Lovelace', email: 'ada@example.com' },
      ...USD_RAMPS,
      timings: EVENTS_ONLY_TIMINGS,
    });
    const kyc = await waitForJourney(D, (s) => s.stage === 'AWAITING_KYC', 'D waiting for KYC');
    await registerTestExits(control, kyc.customer.id!);
    await control.approveCustomer(kyc.customer.id!);
    await deliver();
    const waiting = await waitForJourney(
      D,
      (s) => s.stage === 'AWAITING_ACCOUNTS' && !!s.onramp?.virtualAccount && !!s.offramp?.depositAddress,
      'D awaiting its accounts',
    );
    const account = await ramp.virtualAccounts.detail({ id: waiting.onramp!.virtualAccount!.id });
    await forge('VIRTUAL_ACCOUNT_APPROVED', {
      ...account,
      status: 'VERIFIED',
      accountNumber: '000999000',
      bankName: 'Forgers Bank',
    });
    await settledAfter(
      stack.client.workflow.getHandle(journeyWorkflowId(D)),
      'D taking the forged account approval',
      'virtualAccountEvent',
    );
    const shown = (await journey(D)).onramp!.virtualAccount!;
    expect(shown.accountNumber).not.toBe('000999000');
    expect(shown.status).toBe((await ramp.virtualAccounts.detail({ id: account.id })).status);
    // The real approval then shows the service's own details.
    await control.approveVirtualAccount(account.id);
    await control.approveDepositAddress(waiting.offramp!.depositAddress!.id);
    await deliver();
    const active = await waitForJourney(D, (s) => s.stage === 'ACTIVE', 'D ACTIVE');
    expect(active.onramp!.virtualAccount!.accountNumber).toBe(
      (await ramp.virtualAccounts.detail({ id: account.id })).accountNumber,
    );
  });

  it("afterwards B's money completes on the service's own events, A's is what it was, and the ledger holds", async () => {
    const { control, ramp } = stack.service;
    await control.settleTrade((await tradeOf(scene.bOnramp)).id);
    const bPaymentId = (await tradeOf(bOfframp)).paymentId!;
    await control.settlePayment(bPaymentId);
    await deliver();
    for (const id of [scene.bOnramp, bOfframp])
      await waitForDeposit(id, (s) => s.stage === 'COMPLETED', `B's deposit ${id} COMPLETED`);
    expect(await depositState(bOfframp)).toMatchObject({ paymentId: bPaymentId });
    await waitForJourney(B, (s) => s.deposits.byStage.COMPLETED === 2, "B's journey showing both deposits completed");
    expect(shownOf(await journey(A))).toEqual(shownOf(scene.aBefore));
    expect(await findProblems({ client: stack.client, ramp, batch, partner })).toEqual([]);
  });
});
