/**
 * The exit-account look-ups take only a record that names the journey's customer itself. The lists
 * are asked for one customer (`customerId`), but that filter is our request, not the service's word:
 * here the service answers every list with another customer's account of the same address or number
 * (as a service that ignores the filter would), through an undici MockAgent injected into the client.
 * No sandbox fault answers a list unfiltered, so the service's side is the mock's.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExitAccountActivities, createRampActivities } from '../../activities';
import { RampClient } from '../../ramp';

const BASE_URL = 'https://ramp.test';
const JOURNEY_CUSTOMER = 'cus-journey';
const OTHER_CUSTOMER = 'cus-other';
const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const ACCOUNT_NO = '12345678';
const TIME = '2026-11-20T10:00:00Z';

const otherCustomersWallet = {
  id: 'ca-other',
  customerId: OTHER_CUSTOMER,
  currency: 'USDT',
  address: ADDRESS,
  label: '',
  network: 'ETH',
  createTime: TIME,
  updateTime: TIME,
};
const otherCustomersBankAccount = {
  id: 'ba-other',
  customerId: OTHER_CUSTOMER,
  currency: 'AUD',
  bankName: 'Test Bank',
  accountNo: ACCOUNT_NO,
  swift: 'TESTAU2S',
  createTime: TIME,
  updateTime: TIME,
};

const page = (list: unknown[]) => ({
  status: 'SUCCESS',
  data: { list, total: list.length, pageNum: 1, pageSize: 100 },
});

const env = new MockActivityEnvironment(
  { startToCloseTimeoutMs: 60_000, scheduledTimestampMs: Date.now() },
  { logger: new DefaultLogger('ERROR') },
);
const run = <A extends unknown[], R>(activity: (...args: A) => Promise<R>, ...args: A): Promise<R> =>
  env.run(activity, ...args);

let agent: MockAgent;
let ramp: RampClient;
/** The paths of the calls the client made, in order. */
let calls: string[];

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  ramp = new RampClient({ baseUrl: BASE_URL, apiKey: 'key', apiSecret: 'secret', dispatcher: agent });
  calls = [];
});
afterEach(async () => {
  await ramp.close();
  await agent.close();
});

/** Every call to `path` is answered with `body` (persisting: the look-up may list more than once). */
function answer(method: 'GET' | 'POST', path: string, body: object): void {
  agent
    .get(BASE_URL)
    .intercept({ method, path: (target) => target.split('?')[0] === path })
    .reply(() => {
      calls.push(path);
      return { statusCode: 200, data: body, responseOptions: { headers: { 'content-type': 'application/json' } } };
    })
    .persist();
}

describe("a wallet listed for the journey's customer but naming another customer", () => {
  beforeEach(() => answer('GET', '/crypto-address/list', page([otherCustomersWallet])));

  it('is not what findCryptoAddress finds', async () => {
    const found = await run(createRampActivities(ramp).findCryptoAddress, {
      customerId: JOURNEY_CUSTOMER,
      address: ADDRESS,
      network: 'ETH',
    });
    expect(found).toBeNull();
    expect(calls).toEqual(['/crypto-address/list']);
  });

  it("is not taken by ensureCryptoAddress, which adds the journey's own", async () => {
    answer('POST', '/crypto-address/add', { status: 'SUCCESS', data: { id: 'ca-journey' } });
    const id = await run(createExitAccountActivities(ramp).ensureCryptoAddress, {
      customerId: JOURNEY_CUSTOMER,
      currency: 'USDT',
      network: 'ETH',
      address: ADDRESS,
    });
    expect(id).toBe('ca-journey');
    expect(calls).toEqual(['/crypto-address/list', '/crypto-address/add']);
  });

  it('is still found for the customer it names (the check is not a blanket refusal)', async () => {
    expect(
      await run(createRampActivities(ramp).findCryptoAddress, {
        customerId: OTHER_CUSTOMER,
        address: ADDRESS,
        network: 'ETH',
      }),
    ).toBe('ca-other');
  });
});

describe("a bank account listed for the journey's customer but naming another customer", () => {
  beforeEach(() => answer('GET', '/bank-account/list', page([otherCustomersBankAccount])));

  it('is not what findBankAccount finds', async () => {
    expect(
      await run(createRampActivities(ramp).findBankAccount, { customerId: JOURNEY_CUSTOMER, accountNo: ACCOUNT_NO }),
    ).toBeNull();
    expect(calls).toEqual(['/bank-account/list']);
  });

  it("is not taken by ensureBankAccount, which adds the journey's own", async () => {
    answer('POST', '/bank-account/add', { status: 'SUCCESS', data: { id: 'ba-journey' } });
    const id = await run(createExitAccountActivities(ramp).ensureBankAccount, {
      customerId: JOURNEY_CUSTOMER,
      currency: 'AUD',
      bankName: 'Test Bank',
      accountNo: ACCOUNT_NO,
      swift: 'TESTAU2S',
      beneficiaryName: 'Ada Lovelace',
    });
    expect(id).toBe('ba-journey');
    expect(calls).toEqual(['/bank-account/list', '/bank-account/add']);
  });

  it('is still found for the customer it names', async () => {
    expect(
      await run(createRampActivities(ramp).findBankAccount, { customerId: OTHER_CUSTOMER, accountNo: ACCOUNT_NO }),
    ).toBe('ba-other');
  });
});

describe("a receiving account listed for the journey's customer but naming another customer", () => {
  const otherCustomersVirtualAccount = {
    id: 'va-other',
    customerId: OTHER_CUSTOMER,
    currency: 'AUD',
    status: 'ACTIVE',
  };
  const otherCustomersDepositAddress = {
    id: 'da-other',
    customerId: OTHER_CUSTOMER,
    currency: 'USDT',
    network: 'ETH',
    address: ADDRESS,
    status: 'ACTIVE',
  };
  const flow = (id: string, type: string, from: string, to: string) => ({
    id,
    type,
    status: 'ENABLED',
    from,
    to,
    createTime: TIME,
    updateTime: TIME,
  });

  it("is not the entry of an onramp ensureOnramp finds: it creates the journey's own", async () => {
    answer('GET', '/virtual-account/list', page([otherCustomersVirtualAccount]));
    answer('GET', '/autoramp-flow/list', page([flow('flow-other', 'ONRAMP', 'va-other', 'ca-journey')]));
    answer('POST', '/autoramp-flow/onramp', { status: 'SUCCESS', data: { id: 'flow-journey' } });
    answer('GET', '/autoramp-flow/detail', {
      status: 'SUCCESS',
      data: flow('flow-journey', 'ONRAMP', 'va-journey', 'ca-journey'),
    });
    const found = await run(createRampActivities(ramp).ensureOnramp, {
      customerId: JOURNEY_CUSTOMER,
      currency: 'AUD',
      cryptoAddressId: 'ca-journey',
    });
    expect(found).toEqual({ flowId: 'flow-journey', virtualAccountId: 'va-journey' });
    expect(calls).not.toContain('/autoramp-flow/list');
  });

  it("is not the entry of an offramp ensureOfframp finds: it creates the journey's own", async () => {
    answer('GET', '/deposit-address/list', page([otherCustomersDepositAddress]));
    answer('GET', '/autoramp-flow/list', page([flow('flow-other', 'OFFRAMP', 'da-other', 'ba-journey')]));
    answer('POST', '/autoramp-flow/offramp', { status: 'SUCCESS', data: { id: 'flow-journey' } });
    answer('GET', '/autoramp-flow/detail', {
      status: 'SUCCESS',
      data: flow('flow-journey', 'OFFRAMP', 'da-journey', 'ba-journey'),
    });
    const found = await run(createRampActivities(ramp).ensureOfframp, {
      customerId: JOURNEY_CUSTOMER,
      currency: 'USDT',
      network: 'ETH',
      bankAccountId: 'ba-journey',
    });
    expect(found).toEqual({ flowId: 'flow-journey', depositAddressId: 'da-journey' });
    expect(calls).not.toContain('/autoramp-flow/list');
  });

  it('is still found for the customer it names', async () => {
    answer('GET', '/virtual-account/list', page([otherCustomersVirtualAccount]));
    answer('GET', '/autoramp-flow/list', page([flow('flow-other', 'ONRAMP', 'va-other', 'ca-journey')]));
    const found = await run(createRampActivities(ramp).ensureOnramp, {
      customerId: OTHER_CUSTOMER,
      currency: 'AUD',
      cryptoAddressId: 'ca-journey',
    });
    expect(found).toEqual({ flowId: 'flow-other', virtualAccountId: 'va-other' });
  });
});
