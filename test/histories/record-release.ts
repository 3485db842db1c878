/**
 * The paths a release's replay corpus records (docs/deploying/versioning.md), driven the way the
 * temporal suites drive them: the journey harness, the sandbox's controls and faults, a webhook
 * receiver. Not a test of its own: `npm run histories:record -- --release <name>` (dev/record-histories.ts)
 * runs it with recorder.vitest.config.ts and files what it writes to RAMPFLOW_RECORD_OUT.
 *
 * Recorded without the payload codec (the harness takes a plain data converter): the histories hold
 * only test data, and the replay test needs no key. The codec changes no command, so replay is the same.
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { attachmentStoreFromEnv, checkIn } from '../../attachments';
import { setCurrentVersion } from '../../client/deployment';
import { PartnerEventDeliveries } from '../../client/partner-event-deliveries';
import { PayoutClient } from '../../client/payouts';
import { FAILURE_CONVERTER_PATH } from '../../codec/data-converter';
import { registerWebhooks } from '../../webhooks/registration';
import { buildIdOfBundle } from '../../workers/versioning';
import { shownDeposit } from '../../workflows/journey/board';
import { cancelUpdate, closeCustomerUpdate, customerEventSignal, depositWorkflowId, handOverSignal, type JourneyState, payoutPaymentEventSignal, retryUpdate, signupUpdate, submitAttachmentUpdate } from '../../workflows/common/messages';
import { partnerEventDeliveryWorkflowId } from '../../workflows/partner-events/messages';
import { payoutStateQuery } from '../../workflows/payout/messages';
import type { PaymentRecord } from '../../workflows/common/records';
import { startBuildWorker } from '../support/builds';
import { type JourneyHarness, registerTestExits, startActiveJourney, startJourneyHarness, TEST_AUD_SOURCE, TEST_OFFRAMP } from '../support/journey-harness';
import { startPartnerEvents } from '../support/partner-event-wiring';
import { type OfframpByWebhooks, startOfframpByWebhooks } from '../webhooks/support/offramp-by-webhooks';
import { startReceiver, type TestReceiver } from '../webhooks/support/receiver';

const OUT = process.env.RAMPFLOW_RECORD_OUT;
/** No codec: test data only, and the replay test reads the histories without a key. */
const PLAIN = { failureConverterPath: FAILURE_CONVERTER_PATH };
/** Only events move the webhook-driven journeys: polls an hour apart, deadlines a day away. */
const EVENTS_ONLY = { pollIntervalSeconds: 3600, kycDeadlineSeconds: 86_400, accountsDeadlineSeconds: 86_400 };
const SENDER = { address: '0x0000000000000000000000000000000000000001', network: 'ETH' };

let polled: JourneyHarness;
/** The recording workers' version, current in its deployment. */
let deploymentVersion: { deploymentName: string; buildId: string };
let hooked: JourneyHarness;
let receiver: TestReceiver;
let verifying: TestReceiver;

beforeAll(async () => {
  if (!OUT) throw new Error('RAMPFLOW_RECORD_OUT is not set: run `npm run histories:record -- --release <name>`');
  // Versioned workers, made current, as in production: the histories carry the versioning behaviours.
  const bundlePath = inject('workflowBundlePath');
  deploymentVersion = { deploymentName: `record-${randomUUID().slice(0, 8)}`, buildId: buildIdOfBundle(readFileSync(bundlePath)) };
  polled = await startJourneyHarness({}, { dataConverter: PLAIN, deploymentVersion });
  hooked = await startJourneyHarness({ clock: { frozen: true } }, { dataConverter: PLAIN, deploymentVersion, depositTimings: { pollIntervalSeconds: 3600, stepDeadlineSeconds: 86_400 } });
  await setCurrentVersion(polled.client, deploymentVersion);
  receiver = await startReceiver({ client: hooked.client, taskQueue: hooked.taskQueue });
  // The ramp-event workflow's paths: a receiver that hands every delivery to one.
  verifying = await startReceiver({ client: hooked.client, taskQueue: hooked.taskQueue, routing: 'workflow' });
  await registerWebhooks(hooked.ramp, { callbackUrl: receiver.webhookUrl, rampBaseUrl: hooked.sandbox.url });
  // The release's own bundle, beside its histories: the upgrade test's "previous release".
  copyFileSync(bundlePath, join(OUT, 'workflow-bundle.js'));
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await verifying?.close();
  await hooked?.close();
  await polled?.close();
});

/** Saves one finished run's history as <name>.json (a run that continued as new is saved too). */
async function record(name: string, handle: WorkflowHandle, runId?: string): Promise<void> {
  const history = await (runId ? handle.client.getHandle(handle.workflowId, runId) : handle).fetchHistory();
  writeFileSync(join(OUT!, `${name}.json`), historyToJSON(history));
}

const deliver = () => hooked.sandbox.clock.advance(60);
const stageOf = (state: JourneyState, id: string) => shownDeposit(state.deposits, id)?.stage;

async function settleDeposit(h: JourneyHarness, journey: WorkflowHandle, depositId: string): Promise<void> {
  await h.control.confirmDeposit(depositId);
  await h.control.settleTrade((await h.waitForDeposit(depositId, (s) => s.tradeId !== undefined)).tradeId!);
  await h.waitForJourney(journey, (s) => stageOf(s, depositId) === 'COMPLETED');
}

async function close(journey: WorkflowHandle): Promise<void> {
  await journey.executeUpdate(closeCustomerUpdate, { args: [{ reason: 'recorded' }] });
  await journey.result();
}

describe('recording a release of the replay corpus', () => {
  it('journey and deposit by webhooks; ramp events routed, for a closed target, and parked', async () => {
    const journey = await hooked.startJourney({ offramp: TEST_OFFRAMP, timings: EVENTS_ONLY });
    let state = await hooked.waitForJourney(journey, (s) => s.stage === 'AWAITING_KYC');
    const customerId = state.customer.id!;
    await registerTestExits(hooked.control, customerId);
    await hooked.control.approveCustomer(customerId);
    await deliver();
    // The receiver routes the journey's events itself; the same event through a ramp-event workflow
    // too, for that workflow's path (the journey applies each key once, so it changes nothing).
    const routedCustomer = hooked.client.workflow.getHandle(`event/CUSTOMER_APPROVED/${customerId}`);
    expect((await verifying.post({ event: 'CUSTOMER_APPROVED', payload: await hooked.ramp.customers.detail({ id: customerId }) })).status).toBe(200);
    expect(await routedCustomer.result()).toMatchObject({ outcome: 'ROUTED' });
    state = await hooked.waitForJourney(journey, (s) => s.stage === 'AWAITING_ACCOUNTS' && !!s.offramp?.depositAddress);
    await hooked.control.approveDepositAddress(state.offramp!.depositAddress!.id);
    await deliver();
    await hooked.waitForJourney(journey, (s) => s.stage === 'ACTIVE');

    const deposit = await hooked.control.simulateCryptoDeposit({ depositAddressId: state.offramp!.depositAddress!.id, amount: '50.00', currency: 'USDT', sender: SENDER });
    await deliver();
    await hooked.waitForDeposit(deposit.id, (s) => s.stage === 'RECEIVED');
    await hooked.control.confirmDeposit(deposit.id);
    await deliver();
    const routedDeposit = hooked.client.workflow.getHandle(`event/DEPOSIT_APPROVED/${deposit.id}`);
    expect((await verifying.post({ event: 'DEPOSIT_APPROVED', payload: await hooked.ramp.deposits.detail({ id: deposit.id }) })).status).toBe(200);
    expect(await routedDeposit.result()).toMatchObject({ outcome: 'ROUTED' });
    await hooked.control.settleTrade((await hooked.waitForDeposit(deposit.id, (s) => s.tradeId !== undefined)).tradeId!);
    await deliver();
    await hooked.control.settlePayment((await hooked.waitForDeposit(deposit.id, (s) => s.paymentId !== undefined)).paymentId!);
    await deliver();
    await hooked.waitForJourney(journey, (s) => stageOf(s, deposit.id) === 'COMPLETED');
    await close(journey);
    await record('journey-by-webhooks', journey);
    await record('deposit-offramp-by-webhooks', hooked.client.workflow.getHandle(depositWorkflowId(deposit.id)));
    await record('ramp-event-routed-customer', routedCustomer);
    await record('ramp-event-routed-deposit', routedDeposit);

    // An event for a journey that has ended: nothing left to move.
    const closed = await hooked.startJourney({ offramp: TEST_OFFRAMP, timings: EVENTS_ONLY });
    const closedCustomer = (await hooked.waitForJourney(closed, (s) => s.stage === 'AWAITING_KYC')).customer.id!;
    await close(closed);
    await hooked.control.approveCustomer(closedCustomer);
    await deliver();
    const late = hooked.client.workflow.getHandle(`event/CUSTOMER_APPROVED/${closedCustomer}`);
    expect(await late.result()).toMatchObject({ outcome: 'TARGET_CLOSED' });
    await record('ramp-event-target-closed', late);

    // An event name the service never documented parked its ramp-event workflow up to v0.7.0 (that
    // corpus keeps it); the receiver now drops it, since parking is what a leaked token must not buy
    // (webhooks/server.ts), so no workflow is left to record.
    const frozen = randomUUID();
    expect((await receiver.post({ event: 'ACCOUNT_FROZEN', payload: { id: frozen } })).status).toBe(200);
    await expect(hooked.client.workflow.getHandle(`event/ACCOUNT_FROZEN/${frozen}`).describe()).rejects.toThrow(
      'not found',
    );
    // Dismissed (since v0.3.0, the trust rule): a record the service does not have, through the
    // ramp-event workflow and straight to a deposit's workflow.
    const ghost = randomUUID();
    const real = await hooked.ramp.deposits.detail({ id: deposit.id });
    expect((await verifying.post({ event: 'DEPOSIT_APPROVED', payload: { ...real, id: ghost } })).status).toBe(200);
    const missing = hooked.client.workflow.getHandle(`event/DEPOSIT_APPROVED/${ghost}`);
    expect(await missing.result()).toMatchObject({ outcome: 'DISMISSED' });
    await record('ramp-event-dismissed-record-not-found', missing);
    const madeUp = randomUUID();
    expect((await receiver.post({ event: 'DEPOSIT_RECEIVED', payload: { ...real, id: madeUp, status: 'RECEIVED' } })).status).toBe(200);
    const dismissed = hooked.client.workflow.getHandle(depositWorkflowId(madeUp));
    expect(await dismissed.result()).toMatchObject({ stage: 'DISMISSED' });
    await record('deposit-dismissed', dismissed);
  });

  it('deposits the service refunds after confirming them: in flight, and after they completed', async () => {
    const journey = await hooked.startJourney({ offramp: TEST_OFFRAMP, timings: EVENTS_ONLY });
    let state = await hooked.waitForJourney(journey, (s) => s.stage === 'AWAITING_KYC');
    await registerTestExits(hooked.control, state.customer.id!);
    await hooked.control.approveCustomer(state.customer.id!);
    await deliver();
    state = await hooked.waitForJourney(journey, (s) => s.stage === 'AWAITING_ACCOUNTS' && !!s.offramp?.depositAddress);
    const depositAddressId = state.offramp!.depositAddress!.id;
    await hooked.control.approveDepositAddress(depositAddressId);
    await deliver();
    await hooked.waitForJourney(journey, (s) => s.stage === 'ACTIVE');

    const inFlight = await hooked.control.simulateCryptoDeposit({ depositAddressId, amount: '11.00', currency: 'USDT', sender: SENDER });
    await hooked.control.confirmDeposit(inFlight.id);
    await deliver();
    await hooked.waitForDeposit(inFlight.id, (s) => s.stage === 'TRADE_CREATED');
    await hooked.control.refundDeposit(inFlight.id);
    await deliver();
    const inFlightHandle = hooked.client.workflow.getHandle(depositWorkflowId(inFlight.id));
    expect(await inFlightHandle.result()).toMatchObject({ stage: 'REVERSED' });
    await record('deposit-reversed-in-flight', inFlightHandle);

    const completed = await hooked.control.simulateCryptoDeposit({ depositAddressId, amount: '13.00', currency: 'USDT', sender: SENDER });
    await hooked.control.confirmDeposit(completed.id);
    await deliver();
    await hooked.control.settleTrade((await hooked.waitForDeposit(completed.id, (s) => s.tradeId !== undefined)).tradeId!);
    await deliver();
    await hooked.control.settlePayment((await hooked.waitForDeposit(completed.id, (s) => s.paymentId !== undefined)).paymentId!);
    await deliver();
    await hooked.waitForJourney(journey, (s) => stageOf(s, completed.id) === 'COMPLETED');
    await hooked.control.refundDeposit(completed.id);
    await deliver();
    await hooked.waitForJourney(journey, (s) => stageOf(s, completed.id) === 'REVERSED');
    // The deposit's latest run: the one its refund started, which reported the reversal.
    await record('deposit-reversal-after-completion', hooked.client.workflow.getHandle(depositWorkflowId(completed.id)));
    await close(journey);
    await record('journey-with-reversals', journey);
  });

  it('journey and deposit by polls, found by reconciliation, then CLOSED', async () => {
    const { handle, virtualAccountId } = await startActiveJourney(polled);
    const deposit = await polled.control.simulateFiatDeposit({ virtualAccountId, amount: '100.00', currency: 'AUD', sender: TEST_AUD_SOURCE });
    const reconcileId = `reconcile-${randomUUID()}`;
    await polled.client.workflow.execute('reconcileWithService', { taskQueue: polled.taskQueue, workflowId: reconcileId, args: [{}] });
    await settleDeposit(polled, handle, deposit.id);
    await close(handle);
    await record('journey-by-polls-closed', handle);
    await record('deposit-onramp-by-polls', polled.client.workflow.getHandle(depositWorkflowId(deposit.id)));
    await record('reconciliation', polled.client.workflow.getHandle(reconcileId));
  });

  it('a journey that continues as new', async () => {
    const { handle, state } = await startActiveJourney(polled, { timings: { maxHistoryEvents: 100 } });
    const firstRunId = (await handle.describe()).runId;
    const customer = { id: state.customer.id!, status: 'APPROVED' };
    for (let sent = 0; (await handle.describe()).runId === firstRunId; sent++) {
      expect(sent).toBeLessThan(200);
      await handle.signal(customerEventSignal, { key: `CUSTOMER_APPROVED/filler-${sent}`, event: 'CUSTOMER_APPROVED', record: customer });
    }
    await close(handle);
    await record('journey-continue-as-new-first-run', handle, firstRunId);
    await record('journey-continue-as-new-next-run', handle);
  });

  it('journeys parked at a deadline: retried, and cancelled', async () => {
    const retried = await polled.startJourney({ timings: { kycDeadlineSeconds: 2, pollIntervalSeconds: 3600 } });
    const parked = await polled.waitForJourney(retried, (s) => s.stage === 'NEEDS_ATTENTION');
    await polled.control.approveCustomer(parked.customer.id!);
    await retried.executeUpdate(retryUpdate, { args: [{}] });
    await polled.waitForJourney(retried, (s) => s.stage === 'ACTIVE');
    await close(retried);
    await record('journey-deadline-parked-then-retried', retried);

    const cancelled = await polled.startJourney({ timings: { kycDeadlineSeconds: 1 } });
    await polled.waitForJourney(cancelled, (s) => s.stage === 'NEEDS_ATTENTION');
    await cancelled.executeUpdate(cancelUpdate, { args: [{ reason: 'customer gave up' }] });
    await cancelled.result();
    await record('journey-parked-then-cancelled', cancelled);
  });

  it('a journey REJECTED at KYC, and a deposit the service rejects', async () => {
    const rejected = await polled.startJourney({ offramp: TEST_OFFRAMP });
    const kyc = await polled.waitForJourney(rejected, (s) => s.stage === 'AWAITING_KYC');
    await polled.control.rejectCustomer(kyc.customer.id!);
    expect(await rejected.result()).toMatchObject({ stage: 'REJECTED' });
    await record('journey-rejected', rejected);

    const { handle, virtualAccountId } = await startActiveJourney(polled);
    const deposit = await polled.control.simulateFiatDeposit({ virtualAccountId, amount: '30.00', currency: 'AUD', sender: TEST_AUD_SOURCE });
    await polled.reconcile();
    await polled.waitForDeposit(deposit.id, (s) => s.stage === 'RECEIVED');
    await polled.control.rejectDeposit(deposit.id);
    const depositHandle = polled.client.workflow.getHandle(depositWorkflowId(deposit.id));
    expect(await depositHandle.result()).toMatchObject({ stage: 'REJECTED' });
    await close(handle);
    await record('deposit-rejected', depositHandle);
  });

  it('a deposit in ACTION_REQUIRED until an operator submits an attachment', async () => {
    const { handle, virtualAccountId } = await startActiveJourney(polled);
    const deposit = await polled.control.simulateFiatDeposit({ virtualAccountId, amount: '250.00', currency: 'AUD', sender: TEST_AUD_SOURCE });
    await polled.reconcile();
    await polled.waitForDeposit(deposit.id, (s) => s.stage === 'RECEIVED');
    await polled.control.requireDepositAction(deposit.id);
    await polled.waitForDeposit(deposit.id, (s) => s.stage === 'ACTION_REQUIRED');
    const attachment = await checkIn(attachmentStoreFromEnv(), { fileName: 'proof-of-funds.pdf', contentType: 'application/pdf', content: Buffer.from('%PDF-1.4 recorded') });
    const depositHandle = polled.client.workflow.getHandle(depositWorkflowId(deposit.id));
    await depositHandle.executeUpdate(submitAttachmentUpdate, { args: [attachment] });
    await settleDeposit(polled, handle, deposit.id);
    await close(handle);
    await record('deposit-action-required-with-attachment', depositHandle);
  });

  it('partner events: published as they happen, a stream parked at a failing endpoint then resent; a signup answered with the KYC link', async () => {
    const events = await startPartnerEvents({ retrySeconds: 3 });
    const deploymentVersion = { deploymentName: polled.taskQueue, buildId: buildIdOfBundle(readFileSync(inject('workflowBundlePath'))) };
    const h = await startJourneyHarness({}, { dataConverter: PLAIN, partnerEvents: events.wiring, deploymentVersion });
    try {
      await setCurrentVersion(h.client, deploymentVersion);
      events.endpoint.answer({ status: 500 });
      const handle = await h.startJourney({});
      expect(await handle.executeUpdate(signupUpdate, { args: [{ waitSeconds: 10 }] })).toMatchObject({ stage: 'AWAITING_KYC', kycLink: expect.any(String) });
      const kyc = await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC');
      const stream = `customer/${kyc.externalId}` as const;
      const deliveries = new PartnerEventDeliveries(h.client, h.taskQueue);
      while (!(await deliveries.parked()).some((entry) => entry.stream === stream)) await new Promise((wake) => setTimeout(wake, 200));
      events.endpoint.answer({ status: 204 });
      await deliveries.resend(stream);
      const delivery = h.client.workflow.getHandle(partnerEventDeliveryWorkflowId(stream));
      await delivery.result();
      await h.control.approveCustomer(kyc.customer.id!);
      await h.waitForJourney(handle, (s) => s.stage === 'ACTIVE');
      await close(handle);
      await record('partner-events-delivery-parked-then-resent', delivery);
      await record('journey-with-partner-events-and-signup', handle);
    } finally {
      await h.close();
      await events.close();
    }
  });

  it('journeys handed over to another task queue (since v0.8.0): one waiting for KYC, one parked at its deadline', async () => {
    // The next major version's queue, polled by a worker of the same version: the next runs go on there.
    const nextQueue = `${polled.taskQueue}-v1`;
    const next = await startBuildWorker(polled, inject('workflowBundlePath'), deploymentVersion, { taskQueue: nextQueue, dataConverter: PLAIN });
    try {
      const waiting = await polled.startJourney({});
      const atKyc = await polled.waitForJourney(waiting, (s) => s.stage === 'AWAITING_KYC');
      const parkedHandle = await polled.startJourney({ timings: { kycDeadlineSeconds: 2, pollIntervalSeconds: 3600 } });
      const parked = await polled.waitForJourney(parkedHandle, (s) => s.stage === 'NEEDS_ATTENTION');
      const journeys = [waiting, parkedHandle];
      const firstRuns = await Promise.all(journeys.map(async (handle) => (await handle.describe()).runId));
      for (const handle of journeys) await handle.signal(handOverSignal, { taskQueue: nextQueue });
      for (const [at, handle] of journeys.entries())
        while ((await handle.describe()).runId === firstRuns[at]) await new Promise((wake) => setTimeout(wake, 200));
      await polled.control.approveCustomer(atKyc.customer.id!);
      await polled.waitForJourney(waiting, (s) => s.stage === 'ACTIVE');
      await polled.control.approveCustomer(parked.customer.id!);
      await parkedHandle.executeUpdate(retryUpdate, { args: [{}] });
      await polled.waitForJourney(parkedHandle, (s) => s.stage === 'ACTIVE');
      for (const handle of journeys) await close(handle);
      await record('journey-handed-over-first-run', waiting, firstRuns[0]);
      await record('journey-handed-over-next-run', waiting);
      await record('journey-parked-handed-over-first-run', parkedHandle, firstRuns[1]);
      await record('journey-parked-handed-over-next-run', parkedHandle);
    } finally {
      await next.stop();
    }
  });

  it('a payout parked at its settlement deadline, then settled (since v0.8.0)', async () => {
    const { id: customerId } = await polled.ramp.customers.create({ externalId: `payee-${randomUUID()}`, realName: 'Ada Lovelace', email: 'ada@example.com' });
    await polled.control.approveCustomer(customerId!);
    const { id: bankAccountId } = (await polled.ramp.bankAccounts.add({ customerId: customerId!, currency: 'GBP', bankName: 'Barclays', accountNo: '20000012345679', swift: 'BARCGB22', beneficiaryName: 'Ada Lovelace' })) as { id: string };
    await polled.control.creditBalance({ currency: 'USDT', amount: '64' });
    // Polls an hour apart: it parks at its deadline, and the settlement's event makes it look again.
    const handle = await new PayoutClient(polled.client, polled.taskQueue).start({ reference: `po-${randomUUID()}`, bankAccountId, deductCurrency: 'USDT', deductAmount: '64', timings: { pollIntervalSeconds: 3600, settlementDeadlineSeconds: 2 } });
    let parked = await handle.query(payoutStateQuery);
    while (parked.stage !== 'NEEDS_ATTENTION') {
      await new Promise((wake) => setTimeout(wake, 200));
      parked = await handle.query(payoutStateQuery);
    }
    expect(parked.attention).toMatchObject({ errorType: 'Deadline' });
    const paymentId = parked.paymentId!;
    await polled.control.settlePayment(paymentId);
    // As the receiver routes PAYMENT_SETTLED: the payload's record, which the parked payout reads again.
    await handle.signal(payoutPaymentEventSignal, { key: `PAYMENT_SETTLED/${paymentId}`, event: 'PAYMENT_SETTLED', record: { id: paymentId } as PaymentRecord });
    expect(await handle.result()).toMatchObject({ stage: 'SETTLED' });
    await record('payout-deadline-parked-then-settled', handle);
  });

  it('an offramp deposit whose payment the service failed, parked then cancelled (since v0.8.0)', async () => {
    // Deposits that poll every two seconds: no event announces a failed payment, only the poll finds it.
    const depositTimings = { pollIntervalSeconds: 2, stepDeadlineSeconds: 86_400, notFoundGraceSeconds: 1 };
    const version = { deploymentName: `record-failed-${randomUUID().slice(0, 8)}`, buildId: buildIdOfBundle(readFileSync(inject('workflowBundlePath'))) };
    const h = await startJourneyHarness({ clock: { frozen: true } }, { dataConverter: PLAIN, deploymentVersion: version, depositTimings });
    let customer: OfframpByWebhooks | undefined;
    try {
      await setCurrentVersion(h.client, version);
      customer = await startOfframpByWebhooks(h, depositTimings);
      const { deliver, tradeOf } = customer;
      const depositId = await customer.pay('14.000000');
      await deliver();
      await h.waitForDeposit(depositId, (s) => s.stage === 'TRADE_CREATED');
      await h.control.settleTrade((await tradeOf(depositId)).id);
      await deliver();
      await h.waitForDeposit(depositId, (s) => s.stage === 'TRADE_SETTLED');
      await h.control.failPayment((await tradeOf(depositId)).paymentId!, 'beneficiary account closed');
      const parked = await h.waitForDeposit(depositId, (s) => s.stage === 'NEEDS_ATTENTION');
      expect(parked.attention).toMatchObject({ errorType: 'PaymentFailed' });
      const deposit = h.client.workflow.getHandle(depositWorkflowId(depositId));
      await deposit.executeUpdate(cancelUpdate, { args: [{ reason: 'paid out by hand' }] });
      await deposit.result();
      await close(customer.journey);
      await record('deposit-offramp-payment-failed-then-cancelled', deposit);
    } finally {
      await customer?.receiver.close();
      await h.close();
    }
  });

  it('a deposit parked at its step deadlines, each time retried after the service moved (since v0.8.0)', async () => {
    // Each step parks two seconds in (its polls are an hour apart); an operator's retry looks at once.
    const depositTimings = { pollIntervalSeconds: 3600, stepDeadlineSeconds: 2 };
    const version = { deploymentName: `record-retried-${randomUUID().slice(0, 8)}`, buildId: buildIdOfBundle(readFileSync(inject('workflowBundlePath'))) };
    const h = await startJourneyHarness({}, { dataConverter: PLAIN, deploymentVersion: version, depositTimings });
    try {
      await setCurrentVersion(h.client, version);
      const { handle: journey, virtualAccountId } = await startActiveJourney(h);
      const money = await h.control.simulateFiatDeposit({ virtualAccountId, amount: '40.00', currency: 'AUD', sender: TEST_AUD_SOURCE });
      await h.reconcile();
      const deposit = h.client.workflow.getHandle(depositWorkflowId(money.id));
      let lastPark: string | undefined;
      for (let retries = 0; ; retries++) {
        expect(retries).toBeLessThan(6);
        const state = await h.waitForDeposit(money.id, (s) => s.stage === 'COMPLETED' || (s.stage === 'NEEDS_ATTENTION' && s.attention?.since !== lastPark));
        if (state.stage === 'COMPLETED') break;
        expect(state.attention).toMatchObject({ errorType: 'Deadline' });
        lastPark = state.attention!.since;
        // What the parked step waited for, done by the service now.
        if (state.attention!.stage === 'RECEIVED') await h.control.confirmDeposit(money.id);
        else if (state.attention!.stage === 'TRADE_CREATED' && state.tradeId) await h.control.settleTrade(state.tradeId);
        else if (state.attention!.stage === 'TRADE_SETTLED' && state.paymentId) await h.control.settlePayment(state.paymentId);
        await deposit.executeUpdate(retryUpdate, { args: [{}] });
      }
      await h.waitForJourney(journey, (s) => stageOf(s, money.id) === 'COMPLETED');
      await close(journey);
      await record('deposit-deadline-parked-then-retried', deposit);
    } finally {
      await h.close();
    }
  });

  it('a payout from the partner balance', async () => {
    const { id: customerId } = await polled.ramp.customers.create({ externalId: `payee-${randomUUID()}`, realName: 'Ada Lovelace', email: 'ada@example.com' });
    await polled.control.approveCustomer(customerId!);
    const { id: bankAccountId } = (await polled.ramp.bankAccounts.add({ customerId: customerId!, currency: 'GBP', bankName: 'Barclays', accountNo: '20000012345678', swift: 'BARCGB22', beneficiaryName: 'Ada Lovelace' })) as { id: string };
    await polled.control.creditBalance({ currency: 'USDT', amount: '127' });
    const handle = await new PayoutClient(polled.client, polled.taskQueue).start({ reference: `po-${randomUUID()}`, bankAccountId, deductCurrency: 'USDT', deductAmount: '127', timings: { pollIntervalSeconds: 1, settlementDeadlineSeconds: 120 } });
    let paymentId: string | undefined;
    while (!paymentId) {
      paymentId = (await handle.query(payoutStateQuery)).paymentId;
      await new Promise((wake) => setTimeout(wake, 200));
    }
    await polled.control.settlePayment(paymentId);
    expect(await handle.result()).toMatchObject({ stage: 'SETTLED' });
    await record('payout-settled', handle);
  });
});
