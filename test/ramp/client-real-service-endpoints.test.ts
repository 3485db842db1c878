/**
 * The endpoints of the real service that the interface document leaves out, through RampClient with
 * an undici MockAgent injected into the client (never a global one): the exact request each sends
 * (method, raw path and query, JSON body, signature headers) and what each makes of the answer.
 */
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RampClient } from '../../ramp/client';
import { RampFailedError, RampInvalidParametersError, RampOutcomeUnknownError } from '../../ramp/errors';
import { bodySha256Hex, canonicalString, signCanonical, splitRequestTarget } from '../../ramp/signing';
import * as records from './support/records';

const ORIGIN = 'https://ramp.test';

let agent: MockAgent;
let client: RampClient;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  client = new RampClient({
    baseUrl: ORIGIN,
    apiKey: 'key-m',
    apiSecret: 'secret-m',
    dispatcher: agent,
    retry: { maxAttempts: 1 },
  });
});

afterEach(async () => {
  await client.close();
  await agent.close();
});

interface Seen {
  path: string;
  method: string;
  body: string | undefined;
  headers: Record<string, string>;
}

/** Answers one request to `path` (with its raw query) and records what the client sent. */
function answer(method: 'GET' | 'POST', path: string, status: number, body: unknown): Seen[] {
  const seen: Seen[] = [];
  agent
    .get(ORIGIN)
    .intercept({ method, path })
    .reply(
      status,
      (options) => {
        const sent =
          options.body === undefined || options.body === null
            ? undefined
            : Buffer.from(options.body as Uint8Array | string).toString('utf8');
        seen.push({
          path: options.path,
          method: options.method,
          body: sent,
          headers: options.headers as Record<string, string>,
        });
        return typeof body === 'string' ? body : JSON.stringify(body);
      },
      { headers: { 'content-type': 'application/json' } },
    );
  return seen;
}

/** The signature the service would compute for what it received, with the secret it holds. */
function expectedSignature(seen: Seen): string {
  const { path, query } = splitRequestTarget(seen.path);
  const canonical = canonicalString({
    method: seen.method,
    host: 'ramp.test',
    path,
    query,
    bodySha256Hex: seen.body === undefined ? '' : bodySha256Hex(seen.body),
    timestamp: seen.headers['x-timestamp']!,
    nonce: seen.headers['x-nonce']!,
  });
  return signCanonical('secret-m', canonical);
}

describe('accounts a customer owns', () => {
  it('crypto-address/add posts the wallet and returns the new id', async () => {
    const seen = answer('POST', '/crypto-address/add', 200, {
      status: 'SUCCESS',
      data: { ...records.cryptoAddress, id: 'ca-9' },
    });
    const request = { customerId: 'c-1', currency: 'USDT' as const, network: 'ETH', address: '0xabc', label: 'main' };
    expect(await client.cryptoAddresses.add(request)).toMatchObject({ id: 'ca-9' });
    expect(JSON.parse(seen[0]!.body!)).toEqual(request);
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(seen[0]!.headers['x-signature']).toBe(expectedSignature(seen[0]!));
  });

  it('crypto-address/add refuses a currency the service does not list, before sending', async () => {
    await expect(
      client.cryptoAddresses.add({ customerId: 'c-1', currency: 'BTC' as never, network: 'ETH', address: '0xabc' }),
    ).rejects.toThrow(RampInvalidParametersError);
  });

  it('bank-account/add posts the account (optional fields only when given)', async () => {
    const seen = answer('POST', '/bank-account/add', 200, {
      status: 'SUCCESS',
      data: { ...records.bankAccount, id: 'ba-9' },
    });
    const request = {
      customerId: 'c-1',
      currency: 'GBP' as const,
      bankName: 'Bank',
      accountNo: '12345678',
      swift: 'BARCGB22',
      beneficiaryName: 'Ada',
      bankCountry: 'GB',
    };
    expect(await client.bankAccounts.add(request)).toMatchObject({ id: 'ba-9' });
    expect(JSON.parse(seen[0]!.body!)).toEqual(request);
  });

  it('bank-account/add requires the beneficiary name', async () => {
    await expect(
      client.bankAccounts.add({
        customerId: 'c-1',
        currency: 'GBP',
        bankName: 'Bank',
        accountNo: '1',
        swift: 'S',
      } as never),
    ).rejects.toThrow(/beneficiaryName/);
  });

  it('bank-account/detail looks the account up by id', async () => {
    answer('GET', '/bank-account/detail?id=ba-1', 200, { status: 'SUCCESS', data: records.bankAccount });
    expect(await client.bankAccounts.detail({ id: 'ba-1' })).toMatchObject({ id: records.bankAccount.id });
  });
});

describe('deposits', () => {
  it('deposit/mock posts a simulated deposit into a deposit address', async () => {
    const seen = answer('POST', '/deposit/mock', 200, { status: 'SUCCESS', data: records.deposit });
    const request = {
      depositAddressId: 'da-1',
      currency: 'USDT' as const,
      amount: '50',
      sender: { address: '0xfeed', network: 'ETH' },
    };
    expect(await client.deposits.mock(request)).toMatchObject({ id: records.deposit.id });
    expect(JSON.parse(seen[0]!.body!)).toEqual(request);
  });

  it('deposit/mock takes only the currencies the real sandbox does', async () => {
    await expect(
      client.deposits.mock({
        virtualAccountId: 'va-1',
        currency: 'JPY' as never,
        amount: '1',
        sender: { accountNumber: '1' },
      }),
    ).rejects.toThrow(RampInvalidParametersError);
  });
});

describe('payments', () => {
  it('payment/create posts the payout and returns its id', async () => {
    const seen = answer('POST', '/payment/create', 200, { status: 'SUCCESS', data: { ...records.payment, id: 'p-9' } });
    const request = {
      bankAccountId: 'ba-1',
      deductCurrency: 'USDC' as const,
      deductAmount: '25.5',
      reference: 'payout-1',
    };
    expect(await client.payments.create(request)).toMatchObject({ id: 'p-9' });
    const sent = seen[0]!;
    expect(sent.body).toBe(JSON.stringify(request));
    // The signature covers these exact bytes (its hash line is the body's SHA-256).
    expect(sent.headers['x-signature']).toBe(expectedSignature(sent));
  });

  it('payment/create: a short balance is a 422 FAILED with the service words, a 5xx is outcome-unknown', async () => {
    answer('POST', '/payment/create', 422, { status: 'FAILED', message: 'insufficient USDT balance' });
    const short = await client.payments
      .create({ bankAccountId: 'ba-1', deductCurrency: 'USDT', deductAmount: '1', reference: 'r' })
      .catch((error: unknown) => error);
    expect(short).toBeInstanceOf(RampFailedError);
    expect((short as Error).message).toContain('FAILED: insufficient USDT balance');
    answer('POST', '/payment/create', 502, 'bad gateway');
    await expect(
      client.payments.create({ bankAccountId: 'ba-1', deductCurrency: 'USDT', deductAmount: '1', reference: 'r' }),
    ).rejects.toThrow(RampOutcomeUnknownError);
  });

  it('payment/list filters by customer, status and reference, in that order', async () => {
    answer('GET', '/payment/list?pageSize=10&customerId=c-1&status=PENDING&reference=payout-1', 200, {
      status: 'SUCCESS',
      data: records.page([records.payment], 1, 1, 10),
    });
    const page = await client.payments.list({
      pageSize: 10,
      customerId: 'c-1',
      status: 'PENDING',
      reference: 'payout-1',
    });
    expect(page.list.map((payment) => payment.id)).toEqual([records.payment.id]);
  });
});

describe('customer detail', () => {
  it.each([
    ['id', { id: 'c-1' }, '/customer/detail?id=c-1'],
    ['externalId', { externalId: 'user-42' }, '/customer/detail?externalId=user-42'],
    ['email', { email: 'ada+1@example.com' }, '/customer/detail?email=ada%2B1%40example.com'],
  ] as const)('by %s', async (_key, lookup, target) => {
    answer('GET', target, 200, { status: 'SUCCESS', data: records.customer });
    expect(await client.customers.detail(lookup)).toMatchObject({ id: records.customer.id });
  });

  it('takes exactly one look-up key', async () => {
    await expect(client.customers.detail({ id: 'c-1', email: 'a@b.c' })).rejects.toThrow(RampInvalidParametersError);
  });
});

describe('setup', () => {
  it('health, basic-info and the registered callback URL are plain GETs', async () => {
    answer('GET', '/health', 200, { status: 'SUCCESS', data: { status: 'UP' } });
    answer('GET', '/basic-info', 200, { status: 'SUCCESS', data: { id: 'partner-1', name: 'Example' } });
    answer('GET', '/callback-url', 200, { status: 'SUCCESS', data: { callbackUrl: null } });
    expect(await client.setup.health()).toMatchObject({ status: 'UP' });
    expect(await client.setup.basicInfo()).toMatchObject({ id: 'partner-1' });
    expect(await client.setup.callbackUrl()).toEqual({ callbackUrl: null });
  });
});

describe('customers with identity documents', () => {
  it('createWithFiles sends multipart, signed with an empty body hash', async () => {
    const seen = answer('POST', '/customer/createWithFiles', 200, { status: 'SUCCESS', data: { id: 'c-9' } });
    const passport = {
      filename: 'passport.pdf',
      contentType: 'application/pdf',
      content: Buffer.from('%PDF-1.7 passport'),
    };
    expect(
      await client.customers.createWithFiles({ externalId: 'user-9', email: 'ada@example.com' }, [passport]),
    ).toMatchObject({ id: 'c-9' });
    const sent = seen[0]!;
    expect(sent.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(sent.body).toContain('name="externalId"\r\n\r\nuser-9');
    expect(sent.body).toContain('name="files"; filename="passport.pdf"');
    const { path, query } = splitRequestTarget(sent.path);
    const canonical = canonicalString({
      method: 'POST',
      host: 'ramp.test',
      path,
      query,
      bodySha256Hex: '',
      timestamp: sent.headers['x-timestamp']!,
      nonce: sent.headers['x-nonce']!,
    });
    expect(sent.headers['x-signature']).toBe(signCanonical('secret-m', canonical));
  });

  it('createWithFiles needs at least one document', async () => {
    await expect(client.customers.createWithFiles({ externalId: 'user-9' }, [])).rejects.toThrow(
      RampInvalidParametersError,
    );
  });
});

describe('quotes and the AUD whitelist', () => {
  it('trade-preview and GET payment/estimate put their fields in the query', async () => {
    answer('GET', '/autoramp-flow/trade-preview?fromCurrency=AUD&toCurrency=USDT&amount=100', 200, {
      status: 'SUCCESS',
      data: { fromCurrency: 'AUD', toCurrency: 'USDT', fromAmount: '100.00', toAmount: '65.000000', rate: '0.65' },
    });
    expect(
      await client.autorampFlows.tradePreview({ fromCurrency: 'AUD', toCurrency: 'USDT', amount: '100' }),
    ).toMatchObject({ toAmount: '65.000000' });
    answer('GET', '/payment/estimate?deductCurrency=USDT&deductAmount=127&receivedCurrency=GBP', 200, {
      status: 'SUCCESS',
      data: {
        rate: '0.78',
        deductAmount: '127',
        deductCurrency: 'USDT',
        receivedAmount: '100.00',
        receivedCurrency: 'GBP',
      },
    });
    expect(
      await client.payments.quote({ deductCurrency: 'USDT', deductAmount: '127', receivedCurrency: 'GBP' }),
    ).toMatchObject({ receivedAmount: '100.00' });
  });

  it('update-aud-whitelist posts the entry and answers it', async () => {
    const seen = answer('POST', '/virtual-account/update-aud-whitelist', 200, {
      status: 'SUCCESS',
      data: { id: 3, bsbNumber: '062000', accountNumber: '87654321', accountStatus: 'pending' },
    });
    const request = {
      virtualAccountId: 'va-1',
      id: 3,
      sourceAccount: { bsbNumber: '062000', accountNumber: '87654321' },
    };
    expect(await client.virtualAccounts.updateAudWhitelist(request)).toMatchObject({ id: 3, accountStatus: 'pending' });
    expect(JSON.parse(seen[0]!.body!)).toEqual(request);
  });
});

describe('the older generation and its deposits', () => {
  it('legacy-deposit list and detail take integer ids', async () => {
    answer('GET', '/legacy-deposit/list?pageNum=1&pageSize=2', 200, {
      status: 'SUCCESS',
      data: {
        list: [{ id: 1, currency: 'AUD', amount: '10.00', status: 'CONFIRMED' }],
        total: 1,
        pageNum: 1,
        pageSize: 2,
      },
    });
    expect((await client.legacyDeposits.list({ pageNum: 1, pageSize: 2 })).list[0]?.id).toBe(1);
    answer('GET', '/legacy-deposit/detail?id=7', 200, {
      status: 'SUCCESS',
      data: { id: 7, currency: 'USDT', amount: '5', status: 'RECEIVED' },
    });
    expect(await client.legacyDeposits.detail({ id: 7 })).toMatchObject({ id: 7 });
    await expect(client.legacyDeposits.detail({ id: 'seven' as never })).rejects.toThrow(RampInvalidParametersError);
  });

  it('reads each answer by its 200-with-status, failures included', async () => {
    answer('POST', '/create-user', 200, { status: 'SUCCESS', user_id: 'u-1' });
    expect(await client.legacy.createUser({ email: 'ada@example.com' })).toMatchObject({ user_id: 'u-1' });
    answer('GET', '/get-user?user_id=u-1', 200, { status: 'SUCCESS', user_id: 'u-1' });
    expect(await client.legacy.getUser({ user_id: 'u-1' })).toMatchObject({ user_id: 'u-1' });
    answer('POST', '/create-whitelist', 200, { status: 'SUCCESS', whitelist_id: 'w-1' });
    expect(await client.legacy.createWhitelist({ user_id: 'u-1', address: '0xabc', network: 'ETH' })).toMatchObject({
      whitelist_id: 'w-1',
    });
    answer('POST', '/update-whitelist', 200, { status: 'FAIL', message: 'whitelist entry not found' });
    await expect(client.legacy.updateWhitelist({ whitelist_id: 'w-2', label: 'x' })).rejects.toThrow(
      /FAIL: whitelist entry not found/,
    );
    answer('GET', '/get-whitelist?user_id=u-1', 200, { status: 'SUCCESS', whitelist: [] });
    expect(await client.legacy.getWhitelist({ user_id: 'u-1' })).toMatchObject({ whitelist: [] });
    answer('GET', '/deposit-address?currency=USDT&network=TRX', 200, { status: 'SUCCESS', address: 'TXshared' });
    expect(await client.legacy.depositAddress({ currency: 'USDT', network: 'TRX' })).toMatchObject({
      address: 'TXshared',
    });
  });
});
