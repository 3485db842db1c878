/**
 * The activities against a real sandbox over loopback, run in Temporal's MockActivityEnvironment:
 * look-before-create idempotency and the mapping of service errors to Temporal failures.
 */
import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureOf } from '../support/activity-failure';
import { createRampActivities, type RampActivities } from '../../activities';
import { DEFAULT_OUTCOME_UNKNOWN_RETRY_DELAY_MS } from '../../activities/failures';
import { RampClient } from '../../ramp';
import { startTestSandbox, TEST_PARTNER, type TestSandbox } from '../support/sandbox';

let sandbox: TestSandbox;
let activities: RampActivities;
// Failures are what several tests expect; only errors of the environment itself are printed. The
// attempt has a change's one-minute timeout (the mock's default second would bound every call to
// 800 ms) and was scheduled now, so no refusal has lasted long enough to park.
const env = new MockActivityEnvironment(
  { startToCloseTimeoutMs: 60_000, scheduledTimestampMs: Date.now() },
  { logger: new DefaultLogger('ERROR') },
);
/** MockActivityEnvironment.run, typed by the activity it runs. */
const run = <A extends unknown[], R>(activity: (...args: A) => Promise<R>, ...args: A): Promise<R> =>
  env.run(activity, ...args);

beforeAll(async () => {
  sandbox = await startTestSandbox();
  activities = createRampActivities(sandbox.ramp);
});
afterAll(async () => {
  await sandbox.close();
});

const newCustomer = () => ({ externalId: `user-${randomUUID()}`, realName: 'Ada Lovelace', email: 'ada@example.com' });

async function customersWithExternalId(externalId: string): Promise<number> {
  let count = 0;
  for await (const customer of sandbox.ramp.customers.iterate({ pageSize: 100 }))
    if (customer.externalId === externalId) count += 1;
  return count;
}

describe('ensureCustomer', () => {
  it('creates the customer once and finds it on every later call', async () => {
    const details = newCustomer();
    const first = await run(activities.ensureCustomer, details);
    const second = await run(activities.ensureCustomer, details);
    expect(second.id).toBe(first.id);
    expect(first).toMatchObject({ status: 'CREATED', externalId: details.externalId });
    expect(first.kycLink).toMatch(/^http/);
    expect(await customersWithExternalId(details.externalId)).toBe(1);
  });

  it('turns a create whose answer was lost into a retryable OutcomeUnknown, and the retry finds the customer', async () => {
    const details = newCustomer();
    // The service creates the customer, then the connection is reset before the answer arrives.
    await sandbox.control.injectFault({ path: '/customer/create', kind: 'RESET', afterHandling: true });
    const failure = await failureOf(run(activities.ensureCustomer, details));
    expect(failure.type).toBe('OutcomeUnknown');
    expect(failure.nonRetryable).toBe(false);
    // The retry waits until a request the service may still hold can no longer land: the settle
    // delay, counted from when the request left.
    expect(failure.nextRetryDelay).toBeGreaterThan(DEFAULT_OUTCOME_UNKNOWN_RETRY_DELAY_MS - 5_000);
    expect(failure.nextRetryDelay).toBeLessThanOrEqual(DEFAULT_OUTCOME_UNKNOWN_RETRY_DELAY_MS);

    const retried = await run(activities.ensureCustomer, details);
    expect(retried.externalId).toBe(details.externalId);
    expect(await customersWithExternalId(details.externalId)).toBe(1);
  });
});

describe('ensureOnramp and ensureOfframp', () => {
  it('look the flows up before creating them', async () => {
    const customer = await run(activities.ensureCustomer, newCustomer());
    await sandbox.control.approveCustomer(customer.id);
    const crypto = await sandbox.control.registerCryptoAddress({
      customerId: customer.id,
      currency: 'USDT',
      network: 'ETH',
      address: '0x52908400098527886E0F7030069857D2E4169EE7',
    });
    const bank = await sandbox.control.registerBankAccount({
      customerId: customer.id,
      currency: 'AUD',
      bankName: 'Test Bank',
      accountNo: '1234',
      swift: 'TESTAU2S',
    });

    // Found by address (hex addresses compare without case) and by account number.
    expect(
      await run(activities.findCryptoAddress, {
        customerId: customer.id,
        address: '0x52908400098527886e0f7030069857d2e4169ee7',
        network: 'ETH',
      }),
    ).toBe(crypto.id);
    expect(await run(activities.findBankAccount, { customerId: customer.id, accountNo: '1234' })).toBe(bank.id);
    expect(await run(activities.findBankAccount, { customerId: customer.id, accountNo: '9999' })).toBeNull();

    const onramp = { customerId: customer.id, currency: 'AUD', cryptoAddressId: crypto.id };
    const firstOnramp = await run(activities.ensureOnramp, onramp);
    expect(await run(activities.ensureOnramp, onramp)).toEqual(firstOnramp);

    const offramp = { customerId: customer.id, currency: 'USDT', network: 'ETH', bankAccountId: bank.id };
    const firstOfframp = await run(activities.ensureOfframp, offramp);
    expect(await run(activities.ensureOfframp, offramp)).toEqual(firstOfframp);

    const entries = [];
    for await (const flow of sandbox.ramp.autorampFlows.iterate({ pageSize: 100 })) {
      if (flow.from === firstOnramp.virtualAccountId || flow.from === firstOfframp.depositAddressId)
        entries.push(flow.id);
    }
    expect(entries.sort()).toEqual([firstOnramp.flowId, firstOfframp.flowId].sort());
  });
});

describe('service errors as Temporal failures', () => {
  it('makes refused parameters a non-retryable InvalidParameters failure', async () => {
    const customer = await run(activities.ensureCustomer, newCustomer());
    await sandbox.control.approveCustomer(customer.id);
    const failure = await failureOf(
      run(activities.ensureOnramp, { customerId: customer.id, currency: 'XXX', cryptoAddressId: 'missing' }),
    );
    expect(failure.type).toBe('InvalidParameters');
    expect(failure.nonRetryable).toBe(true);
  });

  it('makes bad credentials a retryable Unauthorised failure (one incident for the worker, not a park per workflow) that does not carry the secret', async () => {
    const wrongSecret = 'definitely-not-the-secret';
    const client = new RampClient({
      baseUrl: sandbox.sandbox.url,
      apiKey: TEST_PARTNER.apiKey,
      apiSecret: wrongSecret,
    });
    try {
      const failure = await failureOf(run(createRampActivities(client).getCustomer, 'any'));
      expect(failure.type).toBe('Unauthorised');
      expect(failure.nonRetryable).toBe(false);
      expect(JSON.stringify(failure)).not.toContain(wrongSecret);
    } finally {
      await client.close();
    }
  });

  it('makes a service outage a retryable failure', async () => {
    const customer = await run(activities.ensureCustomer, newCustomer());
    await sandbox.control.injectFault({ path: '/customer/detail', kind: 'HTTP_5XX', count: 3 });
    const failure = await failureOf(run(activities.getCustomer, customer.id));
    expect(failure.type).toBe('HttpError');
    expect(failure.nonRetryable).toBe(false);
  });
});
