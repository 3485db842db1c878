/**
 * The real service's endpoints that the interface document leaves out, through rampflow's own signed
 * client (RampClient) against the sandbox over loopback: both sides implement the same assumptions,
 * so each catches the other's mistakes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RampClient } from '../../ramp/client';
import { RampFailedError, RampInvalidParametersError } from '../../ramp/errors';
import { PARTNER_A, PARTNER_B, approvedCustomer, startReceiver, startSandbox, subscribe, type Harness } from './support/sandbox-fixture';

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
const GBP_ACCOUNT = { currency: 'GBP' as const, bankName: 'Barclays', accountNo: '20000012345678', swift: 'BARCGB22', beneficiaryName: 'Ada Lovelace' };

describe('the accounts a customer owns', () => {
  it('crypto-address/add registers a wallet the list and detail then show, for this partner only', async () => {
    const { a, ramp, rampB } = await start();
    const customerId = await approvedCustomer(a);
    const { id } = await ramp.cryptoAddresses.add({ customerId, currency: 'USDC', network: 'ETH', address: WALLET, label: 'savings' });
    expect(id).toBeTruthy();
    expect(await ramp.cryptoAddresses.detail({ id: id!, customerId })).toMatchObject({ customerId, currency: 'USDC', network: 'ETH', address: WALLET, label: 'savings' });
    expect((await ramp.cryptoAddresses.list({ customerId })).list.map((address) => address.id)).toEqual([id]);
    await expect(rampB.cryptoAddresses.detail({ id: id! })).rejects.toThrow(RampFailedError);
    await expect(ramp.cryptoAddresses.add({ customerId: 'no-such-customer', currency: 'USDT', network: 'ETH', address: WALLET })).rejects.toThrow(/FAILED: customer not found/);
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
    expect((await a.post('/bank-account/add', { customerId, ...withoutName })).json).toMatchObject({ status: 'INVALID_PARAMETERS', message: expect.stringContaining('beneficiaryName') as unknown });
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
    const { id } = await ramp.deposits.mock({ depositAddressId: address.id, currency: 'USDT', amount: '50', sender: { address: 'TXsenderAddress', network: 'TRX' } });
    expect(await ramp.deposits.detail({ id: id! })).toMatchObject({ id, customerId, type: 'CRYPTO', currency: 'USDT', amount: '50.000000', status: 'RECEIVED' });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 60 });
    expect(receiver.events()).toEqual(['DEPOSIT_RECEIVED']);
    await expect(ramp.deposits.mock({ depositAddressId: address.id, currency: 'USDC', amount: '1', sender: { address: 'TX', network: 'TRX' } })).rejects.toThrow(/INVALID_PARAMETERS: the deposit address receives USDT, not USDC/);
  });
});

describe('payouts from the partner balance', () => {
  it('payment/create pays a registered bank account, converted, and payment/list finds it by reference', async () => {
    const { a, ramp } = await start();
    const customerId = await approvedCustomer(a);
    const { id: bankAccountId } = await ramp.bankAccounts.add({ customerId, ...GBP_ACCOUNT });
    await a.ok('POST', '/sandbox/balance/credit', { currency: 'USDT', amount: '200' });

    const { id } = await ramp.payments.create({ bankAccountId: bankAccountId!, deductCurrency: 'USDT', deductAmount: '127', reference: 'payout-1' });
    const payment = await ramp.payments.detail({ id });
    expect(payment).toMatchObject({ id, status: 'PENDING', deductCurrency: 'USDT', deductAmount: '127.000000', receivedCurrency: 'GBP', receivedAmount: '100.00', reference: 'payout-1' });
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
    await ramp.payments.create({ bankAccountId: bankAccountId!, deductCurrency: 'USDC', deductAmount: '20', reference: 'first' });
    const refused = await ramp.payments.create({ bankAccountId: bankAccountId!, deductCurrency: 'USDC', deductAmount: '20', reference: 'second' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RampFailedError);
    expect((refused as Error).message).toContain('FAILED: insufficient USDC balance: 10.000000 available, 20.000000 needed');
    expect((await ramp.payments.list({ reference: 'second' })).total).toBe(0);
    await expect(ramp.payments.create({ bankAccountId: bankAccountId!, deductCurrency: 'GBP' as never, deductAmount: '1', reference: 'x' })).rejects.toThrow(RampInvalidParametersError);
  });
});

describe('customer detail', () => {
  it('finds a customer by id, externalId or email', async () => {
    const { ramp } = await start();
    const { id } = await ramp.customers.create({ externalId: 'user-77', email: 'grace@example.com', realName: 'Grace Hopper' });
    for (const lookup of [{ id: id! }, { externalId: 'user-77' }, { email: 'grace@example.com' }]) {
      expect(await ramp.customers.detail(lookup)).toMatchObject({ id, externalId: 'user-77' });
    }
    await expect(ramp.customers.detail({ email: 'nobody@example.com' })).rejects.toThrow(/FAILED: customer not found/);
  });
});
