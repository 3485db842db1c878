/**
 * A create activity's attempts never overlap (activities/creates.ts), shown on the payout's create
 * against a real sandbox over loopback, each attempt in its own MockActivityEnvironment carrying
 * what Temporal would give it (attempt number, inherited heartbeat details, timeouts).
 */
import { randomUUID } from 'node:crypto';
import type { Info } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { failureOf } from '../support/activity-failure';
import { createPayoutActivities, type PayoutOrder } from '../../activities';
import { asCreate, createRecordOf } from '../../activities/creates';
import { RampClient } from '../../ramp';
import type { PaymentRecord } from '../../workflows/common/records';
import { startTestSandbox, TEST_PARTNER, type TestSandbox } from '../support/sandbox';

/** The settle delay here: longer than the sandbox holds the slow create below. */
const SETTLE_MS = 2_500;
const HOLD_MS = 1_500;
const REFUSED_AFTER_MS = 60_000;

let sandbox: TestSandbox;
/** The worker's client gives up on an answer after 300 ms, far sooner than the sandbox's hold. */
let impatient: RampClient;
let bankAccountId: string;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  impatient = new RampClient({ baseUrl: sandbox.sandbox.url, ...TEST_PARTNER, headersTimeoutMs: 300 });
  const { id: customerId } = await sandbox.ramp.customers.create({
    externalId: `payee-${randomUUID()}`,
    realName: 'Ada Lovelace',
    email: 'ada@example.com',
  });
  await sandbox.control.approveCustomer(customerId!);
  ({ id: bankAccountId } = (await sandbox.ramp.bankAccounts.add({
    customerId: customerId!,
    currency: 'GBP',
    bankName: 'Barclays',
    accountNo: '20000012345678',
    swift: 'BARCGB22',
    beneficiaryName: 'Ada Lovelace',
  })) as { id: string });
  await sandbox.control.creditBalance({ currency: 'USDT', amount: '1000' });
});
afterAll(async () => {
  await impatient?.close();
  await sandbox?.close();
});

const activities = (ramp: RampClient) =>
  createPayoutActivities(ramp, { outcomeUnknownRetryDelayMs: SETTLE_MS, refusedCreateParkAfterMs: REFUSED_AFTER_MS });
const newOrder = (): PayoutOrder => ({
  reference: `po-${randomUUID()}`,
  bankAccountId,
  deductCurrency: 'USDT',
  deductAmount: '1',
});
const paymentsWith = async (reference: string) => (await sandbox.ramp.payments.list({ reference })).list;

/** One attempt as Temporal would run it: a change's one-minute timeout, scheduled now unless told. */
function attempt(info: Partial<Info> = {}) {
  const env = new MockActivityEnvironment(
    { attempt: 1, startToCloseTimeoutMs: 60_000, scheduledTimestampMs: Date.now(), ...info },
    { logger: new DefaultLogger('ERROR') },
  );
  const heartbeats: unknown[] = [];
  env.on('heartbeat', (details: unknown) => heartbeats.push(details));
  return { env, heartbeats };
}

describe('a create whose outcome is unknown', () => {
  it('records when it left, and the next attempt waits until it has settled before looking up: one payment', async () => {
    const order = newOrder();
    // The service holds the create, then makes the payment: long after the client gave up.
    await sandbox.control.injectFault({ path: '/payment/create', kind: 'DELAY', delayMs: HOLD_MS });
    const first = attempt();
    const ranFrom = Date.now();
    const failure = await failureOf(first.env.run(activities(impatient).ensurePayoutPayment, order));
    const ranMs = Date.now() - ranFrom;
    expect(failure.type).toBe('OutcomeUnknown');
    // The retry is due once the request has settled, counted from when it left: less the time the
    // attempt took after it (at most the whole attempt, however slow the machine), never more.
    expect(failure.nextRetryDelay).toBeGreaterThanOrEqual(SETTLE_MS - ranMs);
    expect(failure.nextRetryDelay).toBeLessThanOrEqual(SETTLE_MS);
    // A heartbeat sent before the request: how long an attempt after it must wait, and who sent it;
    // and one sent with the failure: nothing more to wait, since the retry delay waits it out.
    expect(first.heartbeats.map(createRecordOf)).toEqual([
      { settleMs: SETTLE_MS, sentBy: 1 },
      { settleMs: 0, sentBy: 1 },
    ]);

    // The next attempt starts at once (as after a timeout or a killed worker, which set no retry
    // delay), inheriting the record sent before the request: it waits, then finds the payment the
    // held request made.
    const second = attempt({ attempt: 2, heartbeatDetails: first.heartbeats[0] });
    const payment: PaymentRecord = await second.env.run(activities(impatient).ensurePayoutPayment, order);
    expect((await paymentsWith(order.reference)).map((found) => found.id)).toEqual([payment.id]);
  });

  it("waits out a request sent by a worker whose clock runs behind the next one's: one create", async () => {
    const order = newOrder();
    // Every create is held (two of them, should a second be sent).
    await sandbox.control.injectFault({ path: '/payment/create', kind: 'DELAY', delayMs: HOLD_MS, count: 2 });
    // The first attempt runs on a worker whose clock is half a minute behind (within what the service's
    // signature check accepts); it gives up with its request held.
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true, now: Date.now() - 30_000 });
    const first = attempt();
    try {
      expect(await failureOf(first.env.run(activities(impatient).ensurePayoutPayment, order))).toMatchObject({
        type: 'OutcomeUnknown',
      });
    } finally {
      vi.useRealTimers();
    }
    // The next attempt, on a worker with the right time, inherits the record sent before the request:
    // it waits the request out and finds its payment, sending no create of its own.
    const second = attempt({ attempt: 2, heartbeatDetails: first.heartbeats[0] });
    const payment: PaymentRecord = await second.env.run(activities(impatient).ensurePayoutPayment, order);
    expect((await paymentsWith(order.reference)).map((found) => found.id)).toEqual([payment.id]);
    expect(await sandbox.control.pendingFaults()).toMatchObject([
      { path: '/payment/create', kind: 'DELAY', remaining: 1 },
    ]);
    await sandbox.control.injectFault({ path: '/payment/create', kind: 'DELAY', count: 0 });
  });

  it("leaves the retry to the policy's backoff once the request has already settled (a zero delay would end the retries)", async () => {
    await sandbox.control.injectFault({ path: '/payment/create', kind: 'DELAY', delayMs: HOLD_MS });
    const settledAlready = createPayoutActivities(impatient, { outcomeUnknownRetryDelayMs: 100 });
    const failure = await failureOf(attempt().env.run(settledAlready.ensurePayoutPayment, newOrder()));
    expect(failure).toMatchObject({ type: 'OutcomeUnknown', nonRetryable: false });
    expect(failure.nextRetryDelay).toBeUndefined();
  });

  it('ends an attempt whose wait would take more than half its time as OutcomeUnknown, with the rest of the wait, before calling the service', async () => {
    const order = newOrder();
    // A look-up would meet this refusal; it must still be pending afterwards.
    await sandbox.control.injectFault({ path: '/payment/list', kind: 'REFUSED' });
    const settleUntil = Date.now() + 40_000;
    const { env } = attempt({ attempt: 3, heartbeatDetails: { settleUntil, sentBy: 2 } });
    const failure = await failureOf(env.run(activities(sandbox.ramp).ensurePayoutPayment, order));
    expect(failure).toMatchObject({ type: 'OutcomeUnknown', nonRetryable: false });
    expect(failure.nextRetryDelay).toBeGreaterThan(35_000);
    expect(failure.nextRetryDelay).toBeLessThanOrEqual(40_000);
    expect(await sandbox.control.pendingFaults()).toMatchObject([
      { path: '/payment/list', kind: 'REFUSED', remaining: 1 },
    ]);
    await sandbox.control.injectFault({ path: '/payment/list', kind: 'REFUSED', count: 0 });
  });

  it('is abandoned on the wire when its attempt is cancelled', async () => {
    const order = newOrder();
    await sandbox.control.injectFault({ path: '/payment/create', kind: 'DELAY', delayMs: 5_000 });
    const { env } = attempt();
    // Cancelled once the request is out (the record is heartbeated just before it leaves).
    env.on('heartbeat', () => setTimeout(() => env.cancel(), 200));
    const started = Date.now();
    const error = await env.run(activities(sandbox.ramp).ensurePayoutPayment, order).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(CancelledFailure);
    // Well before the service would have answered: undici aborted the request.
    expect(Date.now() - started).toBeLessThan(4_000);
  });
});

describe('a create the service refuses (FAILED)', () => {
  it('is retried as Failed at first, and is Refused, with the service words, once refused past the bound', async () => {
    await sandbox.control.injectFault({ path: '/payment/create', kind: 'REFUSED', count: 2 });
    const create = (order: PayoutOrder) =>
      asCreate(() => sandbox.ramp.payments.create(order), {
        outcomeUnknownRetryDelayMs: SETTLE_MS,
        refusedCreateParkAfterMs: REFUSED_AFTER_MS,
      });
    const early = await failureOf(attempt().env.run(create, newOrder()));
    expect(early).toMatchObject({ type: 'Failed', nonRetryable: false });

    const late = await failureOf(
      attempt({ attempt: 9, scheduledTimestampMs: Date.now() - REFUSED_AFTER_MS - 1 }).env.run(create, newOrder()),
    );
    expect(late).toMatchObject({ type: 'Refused', nonRetryable: true });
    expect(late.message).toContain('POST /payment/create (HTTP 422)');
    expect(late.message).toContain('FAILED: the operation was refused (injected fault)');
  });

  it('is Refused at once for a payout: a short balance stays short until someone tops it up', async () => {
    await sandbox.control.injectFault({ path: '/payment/create', kind: 'REFUSED' });
    const refused = await failureOf(attempt().env.run(activities(sandbox.ramp).ensurePayoutPayment, newOrder()));
    expect(refused).toMatchObject({ type: 'Refused', nonRetryable: true });
  });

  it('is never Refused for a read that fails: only the create itself is', async () => {
    await sandbox.control.injectFault({ path: '/payment/list', kind: 'REFUSED' });
    const failure = await failureOf(
      attempt({ attempt: 9, scheduledTimestampMs: Date.now() - REFUSED_AFTER_MS - 1 }).env.run(
        activities(sandbox.ramp).ensurePayoutPayment,
        newOrder(),
      ),
    );
    expect(failure).toMatchObject({ type: 'Failed', nonRetryable: false });
  });
});
