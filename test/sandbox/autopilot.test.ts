/**
 * Autopilot: every object walks the happy path by itself, driven here by the virtual clock.
 */
import { describe, expect, it } from 'vitest';
import { parseRampEvent } from '../../ramp/schemas';
import { AUD_SENDER, startReceiver, startSandbox, subscribe } from './support/sandbox-fixture';

describe('autopilot', () => {
  it('approves customers, verifies accounts, confirms deposits and settles trades and payments on its own', async () => {
    const { a } = await startSandbox({ autopilot: true, audWhitelistDelaySeconds: 10 });
    const receiver = await startReceiver();
    await subscribe(a, receiver, [
      'CUSTOMER_APPROVED',
      'VIRTUAL_ACCOUNT_APPROVED',
      'DEPOSIT_ADDRESS_APPROVED',
      'DEPOSIT_RECEIVED',
      'DEPOSIT_APPROVED',
      'TRADE_CREATED',
      'TRADE_SETTLED',
      'PAYMENT_SETTLED',
    ]);
    const customer = await a.ok('POST', '/customer/create', { externalId: 'auto', realName: 'Grace Hopper' });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 2 });
    expect((await a.ok('GET', `/customer/detail?id=${customer.id}`)).status).toBe('PENDING');
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 3 });
    expect((await a.ok('GET', `/customer/detail?id=${customer.id}`)).status).toBe('APPROVED');

    const wallet = await a.ok('POST', '/sandbox/crypto-address/create', {
      customerId: customer.id,
      currency: 'USDC',
      network: 'ETH',
      address: '0x00000000000000000000000000000000000000bb',
    });
    const bank = await a.ok('POST', '/sandbox/bank-account/create', {
      customerId: customer.id,
      currency: 'USD',
      bankName: 'Chase',
      accountNo: '0001',
      swift: 'CHASUS33',
    });
    const onramp = await a.ok(
      'GET',
      `/autoramp-flow/detail?id=${(await a.ok('POST', '/autoramp-flow/onramp', { from: { customerId: customer.id, currency: 'AUD', whitelist: AUD_SENDER }, to: wallet.id })).id}`,
    );
    const offramp = await a.ok(
      'GET',
      `/autoramp-flow/detail?id=${(await a.ok('POST', '/autoramp-flow/offramp', { from: { customerId: customer.id, currency: 'USDT', network: 'ETH' }, to: bank.id })).id}`,
    );
    // Verification (3 s) and the whitelist registration (10 s later).
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 13 });
    expect((await a.ok('GET', `/virtual-account/detail?id=${onramp.from}`)).status).toBe('VERIFIED');
    expect((await a.ok('GET', `/deposit-address/detail?id=${offramp.from}`)).status).toBe('APPROVED');
    expect((await a.ok('GET', `/virtual-account/get-aud-whitelist?id=${onramp.from}`))[0].accountStatus).toBe('active');

    await a.ok('POST', '/sandbox/deposit/simulate', {
      virtualAccountId: onramp.from,
      amount: '200',
      currency: 'AUD',
      sender: AUD_SENDER,
    });
    await a.ok('POST', '/sandbox/deposit/simulate', {
      depositAddressId: offramp.from,
      amount: '50',
      currency: 'USDT',
      sender: { address: '0x01', network: 'ETH' },
    });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 600 });

    expect((await a.ok('GET', '/deposit/list?status=CONFIRMED')).total).toBe(2);
    expect((await a.ok('GET', '/trade/list?status=SETTLED')).total).toBe(2);
    const counts = receiver
      .events()
      .reduce<Record<string, number>>((tally, event) => ({ ...tally, [event]: (tally[event] ?? 0) + 1 }), {});
    expect(counts).toEqual({
      CUSTOMER_APPROVED: 1,
      VIRTUAL_ACCOUNT_APPROVED: 1,
      DEPOSIT_ADDRESS_APPROVED: 1,
      DEPOSIT_RECEIVED: 2,
      DEPOSIT_APPROVED: 2,
      TRADE_CREATED: 2,
      TRADE_SETTLED: 2,
      PAYMENT_SETTLED: 1,
    });
    for (const delivery of receiver.received) expect(parseRampEvent(delivery.body).success).toBe(true);
    const payment = receiver.received.find((delivery) => delivery.body.event === 'PAYMENT_SETTLED')?.body.payload;
    expect(payment).toMatchObject({ deductAmount: '50.00', deductCurrency: 'USD', status: 'CONFIRMED' });
  });

  it('confirms an ACTION_REQUIRED deposit once an attachment arrives, and leaves records moved by hand alone', async () => {
    const { a } = await startSandbox({ autopilot: { depositConfirmedSeconds: 60 } });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 0 });
    const customer = await a.ok('POST', '/customer/create', {});
    await a.ok('POST', '/sandbox/customer/reject', { id: customer.id });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 60 });
    // Rejected by hand: the autopilot does not approve it afterwards.
    expect((await a.ok('GET', `/customer/detail?id=${customer.id}`)).status).toBe('REJECTED');

    const approved = await a.ok('POST', '/customer/create', {});
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 10 });
    const address = await a.ok('POST', '/deposit-address/create', {
      customerId: approved.id,
      currency: 'USDT',
      network: 'ETH',
    });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 10 });
    const deposit = await a.ok('POST', '/sandbox/deposit/simulate', {
      depositAddressId: address.id,
      amount: '1',
      currency: 'USDT',
      sender: { address: '0x01', network: 'ETH' },
    });
    await a.ok('POST', '/sandbox/deposit/require-action', { id: deposit.id });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 120 });
    expect((await a.ok('GET', `/deposit/detail?id=${deposit.id}`)).status).toBe('ACTION_REQUIRED');
    const form = new FormData();
    form.set('id', deposit.id);
    form.set('file', new Blob(['proof']), 'proof.txt');
    const encoded = new Request('http://x', { method: 'POST', body: form });
    await a.send({
      method: 'POST',
      target: '/deposit/submitAttachmentFile',
      body: Buffer.from(await encoded.arrayBuffer()),
      contentType: encoded.headers.get('content-type') ?? '',
    });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 60 });
    expect((await a.ok('GET', `/deposit/detail?id=${deposit.id}`)).status).toBe('CONFIRMED');
  });
});
