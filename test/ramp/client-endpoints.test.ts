/**
 * Every endpoint of the interface through RampClient, against a loopback server that checks each
 * signature independently: the method, the raw path and query, the body, and the typed result.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RampClient } from '../../ramp/client';
import { RampInvalidParametersError, RampLegacyFailureError, RampSchemaError } from '../../ramp/errors';
import { addressFromPrivateKey, signWalletOwnership, walletOwnershipMessage } from '../../ramp/wallet-ownership';
import * as records from './support/records';
import {
  startSignedServer,
  success,
  type ReceivedRequest,
  type Reply,
  type SignedServer,
} from './support/signed-server';

const SECRET = 'endpoint-secret-19c2';
let server: SignedServer;
let client: RampClient;
let nextReply: Reply = success(null);

beforeAll(async () => {
  server = await startSignedServer(SECRET, () => nextReply);
  client = new RampClient({ baseUrl: server.url, apiKey: 'key-e', apiSecret: SECRET, retry: { maxAttempts: 1 } });
});

afterAll(async () => {
  await client.close();
  await server.close();
});

/** Replies with `reply` to the one request `call` makes, and returns that request and the call's result. */
async function exchange<T>(reply: Reply, call: () => Promise<T>): Promise<{ request: ReceivedRequest; result: T }> {
  nextReply = reply;
  const before = server.requests.length;
  const result = await call();
  expect(server.requests.length).toBe(before + 1);
  const request = server.requests[before] as ReceivedRequest;
  expect(request.signatureValid).toBe(true);
  return { request, result };
}

function jsonOf(request: ReceivedRequest): unknown {
  expect(request.headers['content-type']).toBe('application/json');
  return JSON.parse(request.body.toString('utf8'));
}

interface EndpointCase {
  name: string;
  call: () => Promise<unknown>;
  method: 'GET' | 'POST';
  target: string;
  body?: unknown;
  data: unknown;
  result?: unknown;
}

const cases: EndpointCase[] = [
  {
    name: 'customers.create',
    call: () => client.customers.create({ externalId: 'ext-1', realName: 'Zoë Ångström', email: 'zoe@example.com' }),
    method: 'POST',
    target: '/customer/create',
    body: { externalId: 'ext-1', realName: 'Zoë Ångström', email: 'zoe@example.com' },
    data: { id: records.customer.id },
  },
  {
    name: 'customers.detail by id',
    call: () => client.customers.detail({ id: records.customer.id }),
    method: 'GET',
    target: `/customer/detail?id=${records.customer.id}`,
    data: records.customer,
  },
  {
    name: 'customers.detail by externalId',
    call: () => client.customers.detail({ externalId: 'user+42@example.com' }),
    method: 'GET',
    target: '/customer/detail?externalId=user%2B42%40example.com',
    data: records.customer,
  },
  {
    name: 'customers.list',
    call: () => client.customers.list({ pageNum: 2, pageSize: 10 }),
    method: 'GET',
    target: '/customer/list?pageNum=2&pageSize=10',
    data: records.page([records.customer], 11, 2, 10),
  },
  {
    name: 'virtualAccounts.create (AUD with whitelist)',
    call: () =>
      client.virtualAccounts.create({
        customerId: 'c-1',
        currency: 'AUD',
        whitelist: { bsbNumber: '062000', accountNumber: '12345678' },
      }),
    method: 'POST',
    target: '/virtual-account/create',
    body: { customerId: 'c-1', currency: 'AUD', whitelist: { bsbNumber: '062000', accountNumber: '12345678' } },
    data: { id: 'va-1', status: 'PENDING' },
  },
  {
    name: 'virtualAccounts.detail',
    call: () => client.virtualAccounts.detail({ id: 'va-1' }),
    method: 'GET',
    target: '/virtual-account/detail?id=va-1',
    data: records.virtualAccount,
  },
  {
    name: 'virtualAccounts.list',
    call: () => client.virtualAccounts.list({ customerId: 'c-1', currency: 'AUD' }),
    method: 'GET',
    target: '/virtual-account/list?customerId=c-1&currency=AUD',
    data: records.page([records.virtualAccount]),
  },
  {
    name: 'virtualAccounts.audWhitelist',
    call: () => client.virtualAccounts.audWhitelist({ virtualAccountId: 'va-1' }),
    method: 'GET',
    target: '/virtual-account/get-aud-whitelist?id=va-1',
    data: [records.audWhitelistEntry],
  },
  {
    name: 'virtualAccounts.createAudWhitelist',
    call: () =>
      client.virtualAccounts.createAudWhitelist({
        virtualAccountId: 'va-1',
        sourceAccount: { bsbNumber: '062000', accountNumber: '87654321', accountName: 'Zoë' },
      }),
    method: 'POST',
    target: '/virtual-account/create-aud-whitelist',
    body: {
      virtualAccountId: 'va-1',
      sourceAccount: { bsbNumber: '062000', accountNumber: '87654321', accountName: 'Zoë' },
    },
    data: { anything: 1 },
  },
  {
    name: 'cryptoAddresses.list',
    call: () => client.cryptoAddresses.list({ pageSize: 5, currency: 'USDC' }),
    method: 'GET',
    target: '/crypto-address/list?pageSize=5&currency=USDC',
    data: records.page([records.cryptoAddress], 1, 1, 5),
  },
  {
    name: 'cryptoAddresses.detail',
    call: () => client.cryptoAddresses.detail({ id: 'ca-1', customerId: 'c-1' }),
    method: 'GET',
    target: '/crypto-address/detail?id=ca-1&customerId=c-1',
    data: records.cryptoAddress,
  },
  {
    name: 'bankAccounts.list',
    call: () => client.bankAccounts.list({ pageNum: 1, pageSize: 100, customerId: 'c-1', currency: 'AUD' }),
    method: 'GET',
    target: '/bank-account/list?pageNum=1&pageSize=100&customerId=c-1&currency=AUD',
    data: records.page([records.bankAccount]),
  },
  {
    name: 'depositAddresses.create',
    call: () => client.depositAddresses.create({ customerId: 'c-1', currency: 'USDT', network: 'ETH' }),
    method: 'POST',
    target: '/deposit-address/create',
    body: { customerId: 'c-1', currency: 'USDT', network: 'ETH' },
    data: { id: 'da-1' },
  },
  {
    name: 'depositAddresses.detail',
    call: () => client.depositAddresses.detail({ id: 'da-1' }),
    method: 'GET',
    target: '/deposit-address/detail?id=da-1',
    data: records.depositAddress,
  },
  {
    name: 'depositAddresses.list',
    call: () => client.depositAddresses.list({ customerId: 'c-1' }),
    method: 'GET',
    target: '/deposit-address/list?customerId=c-1',
    data: records.page([records.depositAddress]),
  },
  {
    name: 'autorampFlows.create',
    call: () => client.autorampFlows.create({ type: 'OFFRAMP', from: 'da-1', to: 'ba-1' }),
    method: 'POST',
    target: '/autoramp-flow/create',
    body: { type: 'OFFRAMP', from: 'da-1', to: 'ba-1' },
    data: { id: 'af-2' },
    result: { id: 'af-2' },
  },
  {
    name: 'autorampFlows.createOnramp',
    call: () => client.autorampFlows.createOnramp({ from: { customerId: 'c-1', currency: 'AUD' }, to: 'ca-1' }),
    method: 'POST',
    target: '/autoramp-flow/onramp',
    body: { from: { customerId: 'c-1', currency: 'AUD' }, to: 'ca-1' },
    data: { id: 'af-3' },
  },
  {
    name: 'autorampFlows.createOfframp',
    call: () =>
      client.autorampFlows.createOfframp({ from: { customerId: 'c-1', currency: 'USDT', network: 'TRX' }, to: 'ba-1' }),
    method: 'POST',
    target: '/autoramp-flow/offramp',
    body: { from: { customerId: 'c-1', currency: 'USDT', network: 'TRX' }, to: 'ba-1' },
    data: { id: 'af-4' },
  },
  {
    name: 'autorampFlows.delete',
    call: () => client.autorampFlows.delete({ id: 'af-4' }),
    method: 'POST',
    target: '/autoramp-flow/delete',
    body: { id: 'af-4' },
    data: null,
  },
  {
    name: 'autorampFlows.detail',
    call: () => client.autorampFlows.detail({ id: 'af-1' }),
    method: 'GET',
    target: '/autoramp-flow/detail?id=af-1',
    data: records.autorampFlow,
  },
  {
    name: 'autorampFlows.list',
    call: () => client.autorampFlows.list({ type: 'ONRAMP', status: 'ENABLED' }),
    method: 'GET',
    target: '/autoramp-flow/list?type=ONRAMP&status=ENABLED',
    data: records.page([records.autorampFlow]),
  },
  {
    name: 'deposits.detail',
    call: () => client.deposits.detail({ id: records.deposit.id, status: 'RECEIVED' }),
    method: 'GET',
    target: `/deposit/detail?id=${records.deposit.id}&status=RECEIVED`,
    data: records.deposit,
  },
  {
    name: 'deposits.list',
    call: () =>
      client.deposits.list({ pageNum: 1, pageSize: 20, customerId: 'c-1', currency: 'AUD', status: 'CONFIRMED' }),
    method: 'GET',
    target: '/deposit/list?pageNum=1&pageSize=20&customerId=c-1&currency=AUD&status=CONFIRMED',
    data: records.page([records.depositListItem], 1, 1, 20),
  },
  {
    name: 'trades.detail',
    call: () => client.trades.detail({ id: 'tr-1' }),
    method: 'GET',
    target: '/trade/detail?id=tr-1',
    data: records.trade,
  },
  {
    name: 'trades.list',
    call: () => client.trades.list({ customerId: 'c-1' }),
    method: 'GET',
    target: '/trade/list?customerId=c-1',
    data: records.page([records.trade]),
  },
  {
    name: 'payments.detail',
    call: () => client.payments.detail({ id: records.payment.id }),
    method: 'GET',
    target: `/payment/detail?id=${records.payment.id}`,
    data: records.payment,
  },
  {
    name: 'payments.estimate',
    call: () => client.payments.estimate({ fromCurrency: 'USDT', toCurrency: 'AUD', amount: '10' }),
    method: 'POST',
    target: '/payment/estimate',
    body: { fromCurrency: 'USDT', toCurrency: 'AUD', amount: '10' },
    data: { rate: '1.52' },
  },
  {
    name: 'balance',
    call: () => client.balance(),
    method: 'GET',
    target: '/balance',
    data: [
      { balance: '10.5', currency: 'USDT' },
      { balance: '0', currency: 'AUD' },
    ],
  },
  {
    name: 'ipWhitelist.get',
    call: () => client.ipWhitelist.get(),
    method: 'GET',
    target: '/ip-white-list',
    data: { ipWhiteList: ['203.0.113.7'] },
  },
  {
    name: 'ipWhitelist.set',
    call: () => client.ipWhitelist.set([]),
    method: 'POST',
    target: '/ip-white-list',
    body: { ipWhiteList: [] },
    data: null,
  },
  {
    name: 'callbackUrl.set',
    call: () => client.callbackUrl.set('https://partner.example/webhooks/ramp/t0k3n'),
    method: 'POST',
    target: '/callback-url',
    body: { callbackUrl: 'https://partner.example/webhooks/ramp/t0k3n' },
    data: null,
  },
  {
    name: 'subscribedEvents.get',
    call: () => client.subscribedEvents.get(),
    method: 'GET',
    target: '/subscribed-events',
    data: { events: ['DEPOSIT_RECEIVED', 'va.approved'] },
  },
  {
    name: 'subscribedEvents.set',
    call: () => client.subscribedEvents.set(['CUSTOMER_APPROVED', 'deposit.received']),
    method: 'POST',
    target: '/subscribed-events',
    body: { events: ['CUSTOMER_APPROVED', 'deposit.received'] },
    data: { message: 'subscribed' },
  },
];

describe('RampClient endpoints', () => {
  it.each(cases.map((endpoint) => [endpoint.name, endpoint] as const))('%s', async (_name, endpoint) => {
    const { request, result } = await exchange(success(endpoint.data), endpoint.call);
    expect(request.method).toBe(endpoint.method);
    expect(request.target).toBe(endpoint.target);
    if (endpoint.body === undefined) expect(request.body.length).toBe(0);
    else expect(jsonOf(request)).toEqual(endpoint.body);
    // Unknown fields pass through: the result is the data as sent.
    expect(result).toEqual(endpoint.result ?? endpoint.data);
  });

  it('walks all endpoints of the interface', () => {
    const covered = new Set(cases.map((endpoint) => `${endpoint.method} ${endpoint.target.split('?')[0]}`));
    covered.add('POST /deposit/submitAttachmentFile');
    covered.add('POST /create-va');
    const interfaceEndpoints = [
      'GET /deposit/detail',
      'GET /deposit/list',
      'POST /autoramp-flow/create',
      'POST /autoramp-flow/onramp',
      'POST /autoramp-flow/offramp',
      'GET /autoramp-flow/list',
      'GET /payment/detail',
      'GET /crypto-address/list',
      'GET /crypto-address/detail',
      'GET /bank-account/list',
      'GET /virtual-account/get-aud-whitelist',
      'POST /virtual-account/create',
      'POST /virtual-account/create-aud-whitelist',
      'POST /create-va',
      'POST /customer/create',
      'GET /customer/detail',
      'GET /customer/list',
      'GET /balance',
      'GET /ip-white-list',
      'POST /ip-white-list',
      'GET /subscribed-events',
      'POST /subscribed-events',
      'POST /callback-url',
      'POST /autoramp-flow/delete',
      'GET /autoramp-flow/detail',
      'POST /deposit-address/create',
      'GET /deposit-address/list',
      'GET /deposit-address/detail',
      'POST /deposit/submitAttachmentFile',
      'GET /trade/list',
      'GET /trade/detail',
      'POST /payment/estimate',
    ];
    expect(interfaceEndpoints.filter((endpoint) => !covered.has(endpoint))).toEqual([]);
  });
});

describe('multipart upload', () => {
  it('sends multipart/form-data signed with an empty body-hash line, parseable by a standard parser', async () => {
    const content = Uint8Array.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x0d, 0x0a]);
    const { request } = await exchange(success({ uploaded: true }), () =>
      client.deposits.submitAttachmentFile({
        depositId: 'd-1',
        fields: { note: 'Zoë’s payslip' },
        file: { filename: 'payslip.pdf', contentType: 'application/pdf', content },
      }),
    );
    expect(request.method).toBe('POST');
    expect(request.target).toBe('/deposit/submitAttachmentFile');
    expect(request.canonical.split('\n')[4]).toBe('');
    const contentType = String(request.headers['content-type']);
    expect(contentType).toMatch(/^multipart\/form-data; boundary=/);
    const form = await new Response(request.body, { headers: { 'content-type': contentType } }).formData();
    expect(form.get('id')).toBe('d-1');
    expect(form.get('note')).toBe('Zoë’s payslip');
    const file = form.get('file') as File;
    expect(file.name).toBe('payslip.pdf');
    expect(file.type).toBe('application/pdf');
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(content);
  });
});

describe('older generation POST /create-va', () => {
  const privateKey = Uint8Array.from({ length: 32 }, (_, index) => index + 1);
  const address = addressFromPrivateKey('ETH', privateKey);
  const message = walletOwnershipMessage(address, 'u-1', new Date());
  const request = {
    user_id: 'u-1',
    currency: 'AUD',
    to_address: address,
    to_network: 'ETH' as const,
    signature: signWalletOwnership({ network: 'ETH', privateKey, message }),
  };

  it('sends snake_case and returns the 200 body on success', async () => {
    const { request: sent, result } = await exchange({ json: { status: 'SUCCESS', data: { va_id: 'va-9' } } }, () =>
      client.legacy.createVa(request),
    );
    expect(sent.target).toBe('/create-va');
    expect(jsonOf(sent)).toEqual(request);
    expect(result).toEqual({ status: 'SUCCESS', data: { va_id: 'va-9' } });
  });

  it('turns a 200 with a failure status into RampLegacyFailureError', async () => {
    nextReply = { json: { status: 'ERROR', msg: 'signature invalid' } };
    const error = await client.legacy.createVa(request).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RampLegacyFailureError);
    expect(error).toMatchObject({
      httpStatus: 200,
      serviceStatus: 'ERROR',
      serviceMessage: 'signature invalid',
      retryable: false,
      path: '/create-va',
    });
  });

  it('refuses to send an address without its ownership signature', async () => {
    const before = server.requests.length;
    const { signature: _signature, ...unsigned } = request;
    await expect(client.legacy.createVa(unsigned)).rejects.toThrow(
      /signature: a wallet ownership signature is required/,
    );
    expect(server.requests.length).toBe(before);
  });
});

describe('schema errors', () => {
  it('name the endpoint and the field', async () => {
    nextReply = success({ ...records.customer, status: 42 });
    const error = await client.customers.detail({ id: 'c-1' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RampSchemaError);
    expect((error as RampSchemaError).message).toMatch(
      /^GET \/customer\/detail \(HTTP 200\): the response does not match the schema: status: /,
    );
    expect((error as RampSchemaError).fields).toEqual(['status']);
  });

  it('name nested list fields', async () => {
    const { amount: _amount, ...withoutAmount } = records.depositListItem;
    nextReply = success(records.page([records.depositListItem, withoutAmount], 2));
    const error = await client.deposits.list().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RampSchemaError);
    expect((error as RampSchemaError).fields).toEqual(['list.1.amount']);
    expect((error as Error).message).toContain('GET /deposit/list');
  });
});

describe('requests refused before sending', () => {
  const refusals: Array<[string, () => Promise<unknown>, RegExp]> = [
    [
      'a customer look-up with neither id nor externalId',
      () => client.customers.detail({} as never),
      /GET \/customer\/detail: invalid request, not sent/,
    ],
    ['an http:// callback URL', () => client.callbackUrl.set('http://partner.example/hook'), /callbackUrl/],
    ['an unknown event name', () => client.subscribedEvents.set(['DEPOSIT_EXPLODED']), /events\.0: not an event name/],
    [
      'an AUD whitelist without a BSB',
      () =>
        client.virtualAccounts.create({ customerId: 'c', currency: 'AUD', whitelist: { accountNumber: '1' } as never }),
      /whitelist\.bsbNumber/,
    ],
    [
      'an onramp without from.customerId',
      () => client.autorampFlows.createOnramp({ from: {} as never, to: 'ca-1' }),
      /from\.customerId/,
    ],
    [
      'a bank-account currency outside the filter values',
      () => client.bankAccounts.list({ currency: 'JPY' as never }),
      /currency/,
    ],
    ['an empty deposit id', () => client.deposits.detail({ id: '' }), /id/],
  ];

  it.each(refusals)('%s', async (_label, call, message) => {
    const before = server.requests.length;
    const error = await call().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RampInvalidParametersError);
    expect((error as Error).message).toMatch(message);
    expect((error as RampInvalidParametersError).httpStatus).toBeUndefined();
    expect(server.requests.length).toBe(before);
  });
});
