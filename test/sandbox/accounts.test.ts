/**
 * Virtual accounts (with the AUD whitelist), deposit addresses, and the customer's bank accounts and
 * crypto addresses, through HTTP: shapes, transitions, events, filters and scoping.
 */
import { describe, expect, it } from 'vitest';
import {
  AudWhitelistEntrySchema,
  BankAccountSchema,
  CryptoAddressSchema,
  DepositAddressSchema,
  VirtualAccountSchema,
  pageOf,
  parseRampEvent,
} from '../../ramp/schemas';
import { conforms } from './support/conformance';
import { AUD_SENDER, approvedCustomer, startReceiver, startSandbox, subscribe } from './support/sandbox-fixture';

describe('virtual accounts', () => {
  it('creates PENDING without banking details, verifies with details and VIRTUAL_ACCOUNT_APPROVED', async () => {
    const { a } = await startSandbox();
    const receiver = await startReceiver();
    await subscribe(a, receiver, ['VIRTUAL_ACCOUNT_APPROVED', 'va.rejected']);
    const customerId = await approvedCustomer(a);
    const account = conforms(
      VirtualAccountSchema,
      await a.ok('POST', '/virtual-account/create', { customerId, currency: 'GBP' }),
    );
    expect(account).toMatchObject({
      customerId,
      currency: 'GBP',
      status: 'PENDING',
      accountNumber: null,
      customerName: 'Ada Lovelace',
    });
    const verified = await a.ok('POST', '/sandbox/virtual-account/approve', { id: account.id });
    expect(verified.status).toBe('VERIFIED');
    expect(verified.accountNumber).toMatch(/^\d{9}$/);
    expect(verified.bankName).toBeTruthy();
    expect(await a.ok('GET', `/virtual-account/detail?id=${account.id}`)).toEqual(verified);

    const second = await a.ok('POST', '/virtual-account/create', { customerId, currency: 'EUR' });
    expect((await a.ok('POST', '/sandbox/virtual-account/reject', { id: second.id })).status).toBe('REJECTED');
    expect((await a.post('/sandbox/virtual-account/approve', { id: second.id })).json.status).toBe('FAILED');

    await a.ok('POST', '/sandbox/clock/advance', { seconds: 60 });
    expect(receiver.events()).toEqual(['VIRTUAL_ACCOUNT_APPROVED', 'va.rejected']);
    for (const delivery of receiver.received) expect(parseRampEvent(delivery.body).success).toBe(true);
  });

  it('requires an approved customer and a supported currency', async () => {
    const { a } = await startSandbox();
    const pending = await a.ok('POST', '/customer/create', {});
    expect((await a.post('/virtual-account/create', { customerId: pending.id, currency: 'AUD' })).json).toEqual({
      status: 'FAILED',
      message: 'customer is CREATED; it must be APPROVED first',
    });
    const customerId = await approvedCustomer(a);
    expect((await a.post('/virtual-account/create', { customerId, currency: 'XYZ' })).json.status).toBe(
      'INVALID_PARAMETERS',
    );
    expect((await a.post('/virtual-account/create', { currency: 'AUD' })).json.status).toBe('INVALID_PARAMETERS');
  });

  it('lists with customerId, currency and status filters', async () => {
    const { a } = await startSandbox();
    const one = await approvedCustomer(a);
    const two = await approvedCustomer(a);
    const aud = await a.ok('POST', '/virtual-account/create', { customerId: one, currency: 'AUD' });
    await a.ok('POST', '/virtual-account/create', { customerId: one, currency: 'GBP' });
    await a.ok('POST', '/virtual-account/create', { customerId: two, currency: 'AUD' });
    await a.ok('POST', '/sandbox/virtual-account/approve', { id: aud.id });
    const page = conforms(pageOf(VirtualAccountSchema), await a.ok('GET', `/virtual-account/list?customerId=${one}`));
    expect(page.total).toBe(2);
    expect((await a.ok('GET', '/virtual-account/list?currency=AUD')).total).toBe(2);
    expect((await a.ok('GET', '/virtual-account/list?status=VERIFIED')).list.map((v: { id: string }) => v.id)).toEqual([
      aud.id,
    ]);
    expect((await a.get('/virtual-account/list?status=NOPE')).json.status).toBe('INVALID_PARAMETERS');
  });

  it('registers the AUD whitelist a short while after approval', async () => {
    const { a } = await startSandbox({ audWhitelistDelaySeconds: 30 });
    const customerId = await approvedCustomer(a);
    const account = await a.ok('POST', '/virtual-account/create', {
      customerId,
      currency: 'AUD',
      whitelist: AUD_SENDER,
    });
    expect(await a.ok('GET', `/virtual-account/get-aud-whitelist?id=${account.id}`)).toEqual([]);
    const verified = await a.ok('POST', '/sandbox/virtual-account/approve', { id: account.id });
    expect(verified.bsbNumber).toMatch(/^\d{3}-\d{3}$/);
    const [entry] = await a.ok('GET', `/virtual-account/get-aud-whitelist?id=${account.id}`);
    conforms(AudWhitelistEntrySchema, entry);
    expect(entry).toMatchObject({ ...AUD_SENDER, accountStatus: 'pending' });
    expect(Number.isInteger(entry.id)).toBe(true);
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 29 });
    expect((await a.ok('GET', `/virtual-account/get-aud-whitelist?id=${account.id}`))[0].accountStatus).toBe('pending');
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 1 });
    expect((await a.ok('GET', `/virtual-account/get-aud-whitelist?id=${account.id}`))[0].accountStatus).toBe('active');
  });

  it('ignores the whitelist object for other currencies, and get-aud-whitelist is for AUD only', async () => {
    const { a } = await startSandbox();
    const customerId = await approvedCustomer(a);
    const gbp = await a.ok('POST', '/virtual-account/create', { customerId, currency: 'GBP', whitelist: AUD_SENDER });
    await a.ok('POST', '/sandbox/virtual-account/approve', { id: gbp.id });
    expect((await a.get(`/virtual-account/get-aud-whitelist?id=${gbp.id}`)).json.status).toBe('INVALID_PARAMETERS');
  });

  it('adds senders with create-aud-whitelist; the server sets their status', async () => {
    const { a, b } = await startSandbox({ audWhitelistDelaySeconds: 5 });
    const customerId = await approvedCustomer(a);
    const account = await a.ok('POST', '/virtual-account/create', { customerId, currency: 'AUD' });
    const entry = conforms(
      AudWhitelistEntrySchema,
      await a.ok('POST', '/virtual-account/create-aud-whitelist', {
        virtualAccountId: account.id,
        sourceAccount: { bsbNumber: '123-456', accountNumber: '999' },
      }),
    );
    expect(entry).toMatchObject({
      bsbNumber: '123-456',
      accountNumber: '999',
      accountName: null,
      accountStatus: 'pending',
    });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 5 });
    expect((await a.ok('GET', `/virtual-account/get-aud-whitelist?id=${account.id}`))[0].accountStatus).toBe('active');
    expect(
      (
        await a.post('/virtual-account/create-aud-whitelist', {
          virtualAccountId: account.id,
          sourceAccount: { bsbNumber: '1' },
        })
      ).json.status,
    ).toBe('INVALID_PARAMETERS');
    expect((await b.get(`/virtual-account/get-aud-whitelist?id=${account.id}`)).json).toEqual({
      status: 'FAILED',
      message: 'virtual account not found',
    });
  });
});

describe('deposit addresses', () => {
  it('creates PENDING with an address, approves and rejects with their events', async () => {
    const { a, b } = await startSandbox();
    const receiver = await startReceiver();
    await subscribe(a, receiver, ['DEPOSIT_ADDRESS_APPROVED', 'DEPOSIT_ADDRESS_REJECTED']);
    const customerId = await approvedCustomer(a);
    const eth = conforms(
      DepositAddressSchema,
      await a.ok('POST', '/deposit-address/create', { customerId, currency: 'USDT', network: 'ETH' }),
    );
    expect(eth).toMatchObject({ customerId, currency: 'USDT', network: 'ETH', status: 'PENDING' });
    expect(eth.address).toMatch(/^0x[0-9a-f]{40}$/);
    const trx = await a.ok('POST', '/deposit-address/create', { customerId, currency: 'USDC', network: 'TRX' });
    expect(trx.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect((await a.ok('POST', '/sandbox/deposit-address/approve', { id: eth.id })).status).toBe('APPROVED');
    expect((await a.ok('POST', '/sandbox/deposit-address/reject', { id: trx.id })).status).toBe('REJECTED');
    expect((await a.ok('GET', `/deposit-address/detail?id=${eth.id}`)).status).toBe('APPROVED');
    expect((await a.ok('GET', '/deposit-address/list?status=REJECTED')).list.map((d: { id: string }) => d.id)).toEqual([
      trx.id,
    ]);
    expect((await a.ok('GET', `/deposit-address/list?customerId=${customerId}&currency=USDT`)).total).toBe(1);
    expect((await b.get(`/deposit-address/detail?id=${eth.id}`)).json).toEqual({
      status: 'FAILED',
      message: 'deposit address not found',
    });
    expect(
      (await a.post('/deposit-address/create', { customerId, currency: 'USDT', network: 'BTC' })).json.status,
    ).toBe('INVALID_PARAMETERS');
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 60 });
    expect(receiver.events()).toEqual(['DEPOSIT_ADDRESS_APPROVED', 'DEPOSIT_ADDRESS_REJECTED']);
    for (const delivery of receiver.received) expect(parseRampEvent(delivery.body).success).toBe(true);
  });
});

describe('bank accounts and crypto addresses', () => {
  it('are created through simulation endpoints and listed with filters', async () => {
    const { a, b } = await startSandbox();
    const one = await approvedCustomer(a);
    const two = await approvedCustomer(a);
    const bank = conforms(
      BankAccountSchema,
      await a.ok('POST', '/sandbox/bank-account/create', {
        customerId: one,
        currency: 'AUD',
        bankName: 'Westpac',
        accountNo: '062000 1234',
        swift: 'WPACAU2S',
      }),
    );
    await a.ok('POST', '/sandbox/bank-account/create', {
      customerId: two,
      currency: 'GBP',
      bankName: 'Barclays',
      accountNo: '20-00-00 1234',
      swift: 'BARCGB22',
    });
    expect(conforms(pageOf(BankAccountSchema), await a.ok('GET', '/bank-account/list')).total).toBe(2);
    expect((await a.ok('GET', `/bank-account/list?customerId=${one}`)).list).toEqual([bank]);
    expect((await a.ok('GET', '/bank-account/list?currency=GBP')).total).toBe(1);
    expect((await a.get('/bank-account/list?currency=JPY')).json.status).toBe('INVALID_PARAMETERS');
    expect((await b.ok('GET', '/bank-account/list')).total).toBe(0);

    const wallet = conforms(
      CryptoAddressSchema,
      await a.ok('POST', '/sandbox/crypto-address/create', {
        customerId: one,
        currency: 'USDT',
        network: 'ETH',
        address: '0x00000000000000000000000000000000000000aa',
        label: 'cold',
      }),
    );
    await a.ok('POST', '/sandbox/crypto-address/create', {
      customerId: two,
      currency: 'USDC',
      network: 'TRX',
      address: 'TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy',
    });
    expect(conforms(pageOf(CryptoAddressSchema), await a.ok('GET', '/crypto-address/list?currency=USDT')).list).toEqual(
      [wallet],
    );
    expect((await a.ok('GET', `/crypto-address/list?customerId=${two}`)).total).toBe(1);
    expect(await a.ok('GET', `/crypto-address/detail?id=${wallet.id}&customerId=${one}`)).toEqual(wallet);
    expect((await a.get(`/crypto-address/detail?id=${wallet.id}&customerId=${two}`)).json).toEqual({
      status: 'FAILED',
      message: 'crypto address not found',
    });
    expect((await b.get(`/crypto-address/detail?id=${wallet.id}`)).json).toEqual({
      status: 'FAILED',
      message: 'crypto address not found',
    });
    expect(
      (
        await a.post('/sandbox/crypto-address/create', {
          customerId: 'nobody',
          currency: 'USDT',
          network: 'ETH',
          address: '0x1',
        })
      ).json,
    ).toEqual({
      status: 'FAILED',
      message: 'customer not found',
    });
  });
});
