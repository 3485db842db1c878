/**
 * The real service's endpoints that the interface document leaves out, through rampflow's own signed
 * client (RampClient) against the sandbox over loopback: both sides implement the same assumptions,
 * so each catches the other's mistakes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RampClient } from '../../ramp/client';
import { RampFailedError, RampInvalidParametersError } from '../../ramp/errors';
import {
  PARTNER_A,
  PARTNER_B,
  approvedCustomer,
  startReceiver,
  startSandbox,
  subscribe,
  type Harness,
} from './support/sandbox-fixture';

const clients: RampClient[] = [];
afterEach(async () => {
  while (clients.length > 0) await clients.pop()?.close();
});

async function start(): Promise<Harness & { ramp: RampClient; rampB: RampClient }> {
  const harness = await startSandbox();
  const ramp = new RampClient({ baseUrl: harness.sandbox.url, ...PARTNER_A, retry: { maxAttempts: 1 } });
  const rampB = new RampClient({ baseUrl: harness.sandbox.url, ...PARTNER_B, retry: { maxAttempts: 1 } });
  clients.push(ramp, rampB);
  return { ...harness, ramp, rampB };
}

const WALLET = '0x00000000000000000000000000000000000000bb';
const GBP_ACCOUNT = {
  currency: 'GBP' as const,
  bankName: 'Barclays',
  accountNo: '20000012345678',
  swift: 'BARCGB22',
  beneficiaryName: 'Ada Lovelace',
};

describe('the accounts a customer owns', () => {
  it('crypto-address/add registers a wallet the list and detail then show, for this partner only', async () => {
    const { a, ramp, rampB } = await start();
    const customerId = await approvedCustomer(a);
    const { id } = await ramp.cryptoAddresses.add({
      customerId,
      currency: 'USDC',
      network: 'ETH',
      address: WALLET,
      label: 'savings',
    });
    expect(id).toBeTruthy();
    expect(await ramp.cryptoAddresses.detail({ id: id!, customerId })).toMatchObject({
      customerId,
      currency: 'USDC',
      network: 'ETH',
      address: WALLET,
      label: 'savings',
    });
    expect((await ramp.cryptoAddresses.list({ customerId })).list.map((address) => address.id)).toEqual([id]);
    await expect(rampB.cryptoAddresses.detail({ id: id! })).rejects.toThrow(RampFailedError);
    await expect(
      ramp.cryptoAddresses.add({ customerId: 'no-such-customer', currency: 'USDT', network: 'ETH', address: WALLET }),
    ).rejects.toThrow(/FAILED: customer not found/);
  });

  it('bank-account/add registers an account that detail and list then show', async () => {
    const { a, ramp, rampB } = await start();
    const customerId = await approvedCustomer(a);
    const { id } = await ramp.bankAccounts.add({ customerId, ...GBP_ACCOUNT, bankCountry: 'GB' });
    // The record shows the interface's fields; the beneficiary appears on the payments to it.
    const { beneficiaryName: _shownOnPayments, ...shown } = GBP_ACCOUNT;
    expect(await ramp.bankAccounts.detail({ id: id! })).toMatchObject({ id, customerId, ...shown });
    expect((await ramp.bankAccounts.list({ customerId, currency: 'GBP' })).total).toBe(1);
    await expect(rampB.bankAccounts.detail({ id: id! })).rejects.toThrow(/FAILED: bank account not found/);
  });

  it('the sandbox refuses a bank account without a beneficiary name, as the client does before sending', async () => {
    const { a } = await start();
    const customerId = await approvedCustomer(a);
    const { beneficiaryName: _dropped, ...withoutName } = GBP_ACCOUNT;
    expect((await a.post('/bank-account/add', { customerId, ...withoutName })).json).toMatchObject({
      status: 'INVALID_PARAMETERS',
      message: expect.stringContaining('beneficiaryName') as unknown,
    });
  });
});

describe('deposit/mock', () => {
  it('puts money into a deposit address like /sandbox/deposit/simulate, with DEPOSIT_RECEIVED', async () => {
    const { a, ramp } = await start();
    const receiver = await startReceiver();
    await subscribe(a, receiver, ['DEPOSIT_RECEIVED']);
    const customerId = await approvedCustomer(a);
    const address = await a.ok('POST', '/deposit-address/create', { customerId, currency: 'USDT', network: 'TRX' });
    await a.ok('POST', '/sandbox/deposit-address/approve', { id: address.id });
    const { id } = await ramp.deposits.mock({
      depositAddressId: address.id,
      currency: 'USDT',
      amount: '50',
      sender: { address: 'TXsenderAddress', network: 'TRX' },
    });
    expect(await ramp.deposits.detail({ id: id! })).toMatchObject({
      id,
      customerId,
      type: 'CRYPTO',
      currency: 'USDT',
      amount: '50.000000',
      status: 'RECEIVED',
    });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 60 });
    expect(receiver.events()).toEqual(['DEPOSIT_RECEIVED']);
    await expect(
      ramp.deposits.mock({
        depositAddressId: address.id,
        currency: 'USDC',
        amount: '1',
        sender: { address: 'TX', network: 'TRX' },
      }),
    ).rejects.toThrow(/INVALID_PARAMETERS: the deposit address receives USDT, not USDC/);
  });
});

describe('payouts from the partner balance', () => {
  it('payment/create pays a registered bank account, converted, and payment/list finds it by reference', async () => {
    const { a, ramp } = await start();
    const customerId = await approvedCustomer(a);
    const { id: bankAccountId } = await ramp.bankAccounts.add({ customerId, ...GBP_ACCOUNT });
    await a.ok('POST', '/sandbox/balance/credit', { currency: 'USDT', amount: '200' });

    const { id } = await ramp.payments.create({
      bankAccountId: bankAccountId!,
      deductCurrency: 'USDT',
      deductAmount: '127',
      reference: 'payout-1',
    });
    const payment = await ramp.payments.detail({ id });
    expect(payment).toMatchObject({
      id,
      status: 'PENDING',
      deductCurrency: 'USDT',
      deductAmount: '127.000000',
      receivedCurrency: 'GBP',
      receivedAmount: '100.00',
      reference: 'payout-1',
    });
    expect(payment.bankAccount).toMatchObject({ accountNo: GBP_ACCOUNT.accountNo, beneficiaryName: 'Ada Lovelace' });
    expect((await ramp.payments.list({ reference: 'payout-1' })).list.map((item) => item.id)).toEqual([id]);
    expect((await ramp.payments.list({ reference: 'payout-2' })).total).toBe(0);
    expect((await ramp.payments.list({ customerId, status: 'PENDING' })).total).toBe(1);

    await a.ok('POST', '/sandbox/payment/settle', { id });
    expect((await ramp.payments.detail({ id })).status).toBe('CONFIRMED');
    expect((await ramp.balance()).find((entry) => entry.currency === 'USDT')?.balance).toBe('73.000000');
  });

  it('refuses a payout the balance (less the payouts still pending) cannot cover with 422 FAILED, in the service words', async () => {
    const { a, ramp } = await start();
    const customerId = await approvedCustomer(a);
    const { id: bankAccountId } = await ramp.bankAccounts.add({ customerId, ...GBP_ACCOUNT });
    await a.ok('POST', '/sandbox/balance/credit', { currency: 'USDC', amount: '30' });
    await ramp.payments.create({
      bankAccountId: bankAccountId!,
      deductCurrency: 'USDC',
      deductAmount: '20',
      reference: 'first',
    });
    const refused = await ramp.payments
      .create({ bankAccountId: bankAccountId!, deductCurrency: 'USDC', deductAmount: '20', reference: 'second' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RampFailedError);
    expect((refused as Error).message).toContain(
      'FAILED: insufficient USDC balance: 10.000000 available, 20.000000 needed',
    );
    expect((await ramp.payments.list({ reference: 'second' })).total).toBe(0);
    await expect(
      ramp.payments.create({
        bankAccountId: bankAccountId!,
        deductCurrency: 'GBP' as never,
        deductAmount: '1',
        reference: 'x',
      }),
    ).rejects.toThrow(RampInvalidParametersError);
  });
});

describe('customer detail', () => {
  it('finds a customer by id, externalId or email', async () => {
    const { ramp } = await start();
    const { id } = await ramp.customers.create({
      externalId: 'user-77',
      email: 'grace@example.com',
      realName: 'Grace Hopper',
    });
    for (const lookup of [{ id: id! }, { externalId: 'user-77' }, { email: 'grace@example.com' }]) {
      expect(await ramp.customers.detail(lookup)).toMatchObject({ id, externalId: 'user-77' });
    }
    await expect(ramp.customers.detail({ email: 'nobody@example.com' })).rejects.toThrow(/FAILED: customer not found/);
  });
});

describe('setup, quotes and the AUD whitelist', () => {
  it('health, basic-info and the registered callback URL', async () => {
    const { ramp } = await start();
    expect(await ramp.setup.health()).toEqual({ status: 'UP' });
    expect((await ramp.setup.basicInfo()).id).toBeTruthy();
    expect(await ramp.setup.callbackUrl()).toEqual({ callbackUrl: null });
    await ramp.callbackUrl.set('https://partner.example/webhooks');
    expect(await ramp.setup.callbackUrl()).toEqual({ callbackUrl: 'https://partner.example/webhooks' });
  });

  it('trade-preview and GET payment/estimate quote at the sandbox rates; POST estimate agrees', async () => {
    const { ramp } = await start();
    expect(
      await ramp.autorampFlows.tradePreview({ fromCurrency: 'GBP', toCurrency: 'USDT', amount: '100' }),
    ).toMatchObject({ fromAmount: '100.00', toAmount: '127.000000' });
    const quote = await ramp.payments.quote({ deductCurrency: 'USDT', deductAmount: '127', receivedCurrency: 'GBP' });
    expect(quote).toMatchObject({ receivedAmount: '100.00', receivedCurrency: 'GBP' });
    expect(
      await ramp.payments.estimate({ deductCurrency: 'USDT', deductAmount: '127', receivedCurrency: 'GBP' }),
    ).toEqual(quote);
    await expect(
      ramp.autorampFlows.tradePreview({ fromCurrency: 'XYZ', toCurrency: 'USDT', amount: '1' }),
    ).rejects.toThrow(/INVALID_PARAMETERS: fromCurrency must be one of/);
  });

  it('update-aud-whitelist replaces an entry, pending until the provider registers it', async () => {
    const { a, ramp, sandbox } = await start();
    const customerId = await approvedCustomer(a);
    const { id: virtualAccountId } = await ramp.virtualAccounts.create({ customerId, currency: 'AUD' });
    await ramp.virtualAccounts.createAudWhitelist({
      virtualAccountId: virtualAccountId!,
      sourceAccount: { bsbNumber: '062000', accountNumber: '12345678' },
    });
    const [entry] = await ramp.virtualAccounts.audWhitelist({ virtualAccountId: virtualAccountId! });
    const updated = await ramp.virtualAccounts.updateAudWhitelist({
      virtualAccountId: virtualAccountId!,
      id: entry!.id,
      sourceAccount: { bsbNumber: '062000', accountNumber: '87654321' },
    });
    expect(updated).toMatchObject({ id: entry!.id, accountNumber: '87654321', accountStatus: 'pending' });
    await sandbox.clock.advance(60);
    expect(await ramp.virtualAccounts.audWhitelist({ virtualAccountId: virtualAccountId! })).toEqual([
      expect.objectContaining({ id: entry!.id, accountNumber: '87654321', accountStatus: 'active' }),
    ]);
    await expect(
      ramp.virtualAccounts.updateAudWhitelist({
        virtualAccountId: virtualAccountId!,
        id: 999,
        sourceAccount: { bsbNumber: '062000', accountNumber: '1111' },
      }),
    ).rejects.toThrow(/FAILED: whitelist entry not found/);
  });
});

describe('customers with identity documents', () => {
  it('createWithFiles creates the customer from the form fields, and needs a document', async () => {
    const { ramp } = await start();
    const passport = { filename: 'passport.pdf', contentType: 'application/pdf', content: Buffer.from('%PDF-1.7') };
    const { id } = await ramp.customers.createWithFiles(
      { externalId: 'user-doc', email: 'ada@example.com', realName: 'Ada Lovelace' },
      [passport],
    );
    expect(await ramp.customers.detail({ externalId: 'user-doc' })).toMatchObject({ id, email: 'ada@example.com' });
    const noDocuments = await ramp.http
      .send({
        method: 'POST',
        path: '/customer/createWithFiles',
        body: { bytes: Buffer.from('--b--\r\n'), contentType: 'multipart/form-data; boundary=b', hashed: false },
      })
      .catch((error: unknown) => error);
    expect((noDocuments as Error).message).toContain('INVALID_PARAMETERS');
  });
});

describe('the older generation and its deposits', () => {
  it('legacy-deposit numbers the partner deposits from 1', async () => {
    const { a, ramp } = await start();
    const customerId = await approvedCustomer(a);
    const address = await a.ok('POST', '/deposit-address/create', { customerId, currency: 'USDT', network: 'TRX' });
    await a.ok('POST', '/sandbox/deposit-address/approve', { id: address.id });
    const { id: first } = await ramp.deposits.mock({
      depositAddressId: address.id,
      currency: 'USDT',
      amount: '5',
      sender: { address: 'TXs', network: 'TRX' },
    });
    await ramp.deposits.mock({
      depositAddressId: address.id,
      currency: 'USDT',
      amount: '6',
      sender: { address: 'TXs', network: 'TRX' },
    });
    const page = await ramp.legacyDeposits.list({ pageSize: 10 });
    expect(page.list.map((deposit) => [deposit.id, deposit.amount])).toEqual([
      [1, '5.000000'],
      [2, '6.000000'],
    ]);
    expect(await ramp.legacyDeposits.detail({ id: 1 })).toMatchObject({ id: 1, deposit_id: first });
    await expect(ramp.legacyDeposits.detail({ id: 3 })).rejects.toThrow(/FAILED: deposit not found/);
  });

  it('users, their withdrawal whitelist and the shared deposit address answer 200 with the outcome in status', async () => {
    const { ramp, rampB } = await start();
    const created = await ramp.legacy.createUser({
      email: 'grace@example.com',
      name: 'Grace Hopper',
      external_id: 'legacy-1',
    });
    const userId = (created.data as { user_id: string }).user_id;
    expect((await ramp.legacy.getUser({ user_id: userId })).data).toMatchObject({
      user_id: userId,
      email: 'grace@example.com',
    });
    const whitelisted = await ramp.legacy.createWhitelist({ user_id: userId, address: '0xabc', network: 'ETH' });
    const whitelistId = (whitelisted.data as { whitelist_id: string }).whitelist_id;
    await ramp.legacy.updateWhitelist({ whitelist_id: whitelistId, label: 'cold wallet' });
    expect((await ramp.legacy.getWhitelist({ user_id: userId })).data).toEqual({
      whitelist: [{ whitelist_id: whitelistId, address: '0xabc', network: 'ETH', label: 'cold wallet' }],
    });
    await expect(rampB.legacy.updateWhitelist({ whitelist_id: whitelistId, label: 'x' })).rejects.toThrow(
      /HTTP 200.*FAILED: whitelist entry not found/,
    );
    const shared = (await ramp.legacy.depositAddress({ currency: 'USDT', network: 'TRX' })).data as { address: string };
    expect(
      ((await ramp.legacy.depositAddress({ currency: 'USDT', network: 'TRX' })).data as { address: string }).address,
    ).toBe(shared.address);
    expect(
      ((await ramp.legacy.depositAddress({ currency: 'USDT', network: 'ETH' })).data as { address: string }).address,
    ).not.toBe(shared.address);
  });
});
