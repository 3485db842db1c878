/**
 * Autoramp flows, deposits, trades, payments and balances through HTTP: the onramp and offramp paths
 * end to end, the deposit state machine (whitelist rejection, ACTION_REQUIRED and attachments), list
 * filters, and the events each step fires.
 */
import { describe, expect, it } from 'vitest';
import {
  AutorampFlowSchema,
  BalancesSchema,
  DepositListItemSchema,
  DepositSchema,
  PaymentSchema,
  TradeSchema,
  pageOf,
  parseRampEvent,
} from '../../ramp/schemas';
import type { SignedClient } from './support/signed-client';
import { conforms } from './support/conformance';
import { AUD_SENDER, approvedCustomer, startReceiver, startSandbox, subscribe } from './support/sandbox-fixture';

const WALLET = '0x00000000000000000000000000000000000000aa';

async function audOnramp(
  a: SignedClient,
): Promise<{ customerId: string; flowId: string; virtualAccountId: string; walletId: string }> {
  const customerId = await approvedCustomer(a);
  const wallet = await a.ok('POST', '/sandbox/crypto-address/create', {
    customerId,
    currency: 'USDT',
    network: 'ETH',
    address: WALLET,
  });
  const { id: flowId } = await a.ok('POST', '/autoramp-flow/onramp', {
    from: { customerId, currency: 'AUD', whitelist: AUD_SENDER },
    to: wallet.id,
  });
  const flow = await a.ok('GET', `/autoramp-flow/detail?id=${flowId}`);
  return { customerId, flowId, virtualAccountId: flow.from, walletId: wallet.id };
}

async function usdtOfframp(
  a: SignedClient,
): Promise<{ customerId: string; flowId: string; depositAddressId: string; bankId: string }> {
  const customerId = await approvedCustomer(a);
  const bank = await a.ok('POST', '/sandbox/bank-account/create', {
    customerId,
    currency: 'GBP',
    bankName: 'Barclays',
    accountNo: '20000012345678',
    swift: 'BARCGB22',
    beneficiaryName: 'Ada Lovelace',
  });
  const { id: flowId } = await a.ok('POST', '/autoramp-flow/offramp', {
    from: { customerId, currency: 'USDT', network: 'TRX' },
    to: bank.id,
  });
  const flow = await a.ok('GET', `/autoramp-flow/detail?id=${flowId}`);
  return { customerId, flowId, depositAddressId: flow.from, bankId: bank.id };
}

const balanceOf = async (a: SignedClient, currency: string): Promise<string> =>
  (
    conforms(BalancesSchema, await a.ok('GET', '/balance')).find((entry) => entry.currency === currency) as {
      balance: string;
    }
  ).balance;

describe('autoramp flows', () => {
  it('onramp creates a PENDING virtual account as entry; offramp a PENDING deposit address', async () => {
    const { a } = await startSandbox();
    const onramp = await audOnramp(a);
    const flow = conforms(AutorampFlowSchema, await a.ok('GET', `/autoramp-flow/detail?id=${onramp.flowId}`));
    expect(flow).toMatchObject({ type: 'ONRAMP', to: onramp.walletId, status: 'ENABLED' });
    expect(flow).not.toHaveProperty('customerId');
    expect(flow).not.toHaveProperty('creator');
    expect((await a.ok('GET', `/virtual-account/detail?id=${onramp.virtualAccountId}`)).status).toBe('PENDING');
    const offramp = await usdtOfframp(a);
    expect(await a.ok('GET', `/deposit-address/detail?id=${offramp.depositAddressId}`)).toMatchObject({
      status: 'PENDING',
      network: 'TRX',
      currency: 'USDT',
    });
    const list = conforms(pageOf(AutorampFlowSchema), await a.ok('GET', '/autoramp-flow/list?type=OFFRAMP'));
    expect(list.list.map((item) => item.id)).toEqual([offramp.flowId]);
  });

  it('rejects the pre-2026-03-27 shape with a top-level customerId, and exits of another customer', async () => {
    const { a } = await startSandbox();
    const customerId = await approvedCustomer(a);
    const other = await approvedCustomer(a);
    const wallet = await a.ok('POST', '/sandbox/crypto-address/create', {
      customerId: other,
      currency: 'USDT',
      network: 'ETH',
      address: WALLET,
    });
    expect(
      (await a.post('/autoramp-flow/onramp', { customerId, from: { customerId, currency: 'AUD' }, to: wallet.id })).json
        .status,
    ).toBe('INVALID_PARAMETERS');
    expect(
      (await a.post('/autoramp-flow/onramp', { from: { customerId, currency: 'AUD' }, to: wallet.id })).json,
    ).toEqual({
      status: 'INVALID_PARAMETERS',
      message: 'to belongs to a different customer',
    });
    // Nothing was created by the refused request.
    expect((await a.ok('GET', '/virtual-account/list')).total).toBe(0);
    expect(
      (await a.post('/autoramp-flow/offramp', { from: { customerId, currency: 'AUD', network: 'ETH' }, to: 'x' })).json
        .status,
    ).toBe('INVALID_PARAMETERS');
  });

  it('links existing records with create, one enabled flow per entry, and delete disables', async () => {
    const { a, b } = await startSandbox();
    const customerId = await approvedCustomer(a);
    const address = await a.ok('POST', '/deposit-address/create', { customerId, currency: 'USDC', network: 'ETH' });
    const bank = await a.ok('POST', '/sandbox/bank-account/create', {
      customerId,
      currency: 'EUR',
      bankName: 'ING',
      accountNo: 'NL00INGB0001',
      swift: 'INGBNL2A',
    });
    const { id } = await a.ok('POST', '/autoramp-flow/create', { type: 'OFFRAMP', from: address.id, to: bank.id });
    expect(
      (await a.post('/autoramp-flow/create', { type: 'OFFRAMP', from: address.id, to: bank.id })).json.status,
    ).toBe('FAILED');
    expect((await a.post('/autoramp-flow/create', { type: 'ONRAMP', from: address.id, to: bank.id })).json.status).toBe(
      'FAILED',
    );
    expect((await b.get(`/autoramp-flow/detail?id=${id}`)).json).toEqual({
      status: 'FAILED',
      message: 'autoramp flow not found',
    });
    expect((await b.post('/autoramp-flow/delete', { id })).json).toEqual({
      status: 'FAILED',
      message: 'autoramp flow not found',
    });
    expect(await a.ok('POST', '/autoramp-flow/delete', { id })).toEqual({ id });
    expect((await a.ok('GET', `/autoramp-flow/detail?id=${id}`)).status).toBe('DISABLED');
    expect((await a.ok('GET', '/autoramp-flow/list?status=DISABLED')).total).toBe(1);
    expect((await a.ok('GET', '/autoramp-flow/list?status=ENABLED')).total).toBe(0);
    expect((await a.get('/autoramp-flow/list?type=SIDEWAYS')).json.status).toBe('INVALID_PARAMETERS');
  });
});

describe('the onramp path', () => {
  it('AUD deposit from the whitelisted sender → confirmed → trade → settled, with events and balances', async () => {
    const { a } = await startSandbox({ audWhitelistDelaySeconds: 30 });
    const receiver = await startReceiver();
    await subscribe(a, receiver, [
      'VIRTUAL_ACCOUNT_APPROVED',
      'DEPOSIT_RECEIVED',
      'DEPOSIT_APPROVED',
      'TRADE_CREATED',
      'TRADE_SETTLED',
    ]);
    const onramp = await audOnramp(a);
    await a.ok('POST', '/sandbox/virtual-account/approve', { id: onramp.virtualAccountId });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 30 });

    const received = conforms(
      DepositSchema,
      await a.ok('POST', '/sandbox/deposit/simulate', {
        virtualAccountId: onramp.virtualAccountId,
        amount: '1000.00',
        currency: 'AUD',
        sender: AUD_SENDER,
      }),
    );
    expect(received).toMatchObject({
      status: 'RECEIVED',
      type: 'FIAT',
      currency: 'AUD',
      amount: '1000.00',
      customerId: onramp.customerId,
    });
    expect(received.receiverVirtualAccount?.id).toBe(onramp.virtualAccountId);
    expect(received.senderBankAccount?.accountNo).toBe(AUD_SENDER.accountNumber);

    const confirmed = await a.ok('POST', '/sandbox/deposit/confirm', { id: received.id });
    expect(confirmed.status).toBe('CONFIRMED');
    expect(await balanceOf(a, 'AUD')).toBe('1000.00');

    const [trade] = conforms(
      pageOf(TradeSchema),
      await a.ok('GET', `/trade/list?customerId=${onramp.customerId}`),
    ).list;
    expect(trade).toMatchObject({
      fromCurrency: 'AUD',
      fromAmount: '1000.00',
      toCurrency: 'USDT',
      toAmount: '650.000000',
      status: 'PENDING',
    });
    expect(trade?.deposit).toEqual({ id: received.id, currency: 'AUD', amount: '1000.00' });
    const settled = conforms(TradeSchema, await a.ok('POST', '/sandbox/trade/settle', { id: trade?.id }));
    expect(settled.status).toBe('SETTLED');
    expect(await a.ok('GET', `/trade/detail?id=${trade?.id}`)).toEqual(settled);
    expect((await a.ok('GET', '/trade/list?status=SETTLED')).total).toBe(1);
    // AUD converted away; the USDT went straight on to the exit wallet.
    expect(await balanceOf(a, 'AUD')).toBe('0.00');
    expect(await balanceOf(a, 'USDT')).toBe('0.000000');
    expect((await a.post('/sandbox/trade/settle', { id: trade?.id })).json.status).toBe('FAILED');

    await a.ok('POST', '/sandbox/clock/advance', { seconds: 60 });
    expect(receiver.events()).toEqual([
      'VIRTUAL_ACCOUNT_APPROVED',
      'DEPOSIT_RECEIVED',
      'DEPOSIT_APPROVED',
      'TRADE_CREATED',
      'TRADE_SETTLED',
    ]);
    for (const delivery of receiver.received)
      expect(parseRampEvent(delivery.body).success, JSON.stringify(delivery.body)).toBe(true);
    expect(receiver.received[1]?.body.payload.status).toBe('RECEIVED');
    expect(receiver.received[2]?.body.payload.status).toBe('CONFIRMED');
  });

  it('rejects an AUD deposit from a sender that is not whitelisted (RECEIVED, then REJECTED)', async () => {
    const { a } = await startSandbox();
    const receiver = await startReceiver();
    await subscribe(a, receiver, ['deposit.received', 'deposit.rejected']);
    const onramp = await audOnramp(a);
    await a.ok('POST', '/sandbox/virtual-account/approve', { id: onramp.virtualAccountId });
    // The whitelist entry is still pending right after approval.
    const early = await a.ok('POST', '/sandbox/deposit/simulate', {
      virtualAccountId: onramp.virtualAccountId,
      amount: '5',
      currency: 'AUD',
      sender: AUD_SENDER,
    });
    expect(early.status).toBe('REJECTED');
    const stranger = await a.ok('POST', '/sandbox/deposit/simulate', {
      virtualAccountId: onramp.virtualAccountId,
      amount: '5',
      currency: 'AUD',
      sender: { bsbNumber: '999-999', accountNumber: '1', accountName: 'Mallory' },
    });
    expect(stranger.status).toBe('REJECTED');
    expect(await balanceOf(a, 'AUD')).toBe('0.00');
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 60 });
    expect(receiver.events()).toEqual(['deposit.received', 'deposit.rejected', 'deposit.received', 'deposit.rejected']);
  });

  it('refuses deposits to unverified accounts, in the wrong currency, or without a BSB for AUD', async () => {
    const { a } = await startSandbox();
    const onramp = await audOnramp(a);
    const simulate = (body: object) =>
      a.post('/sandbox/deposit/simulate', {
        virtualAccountId: onramp.virtualAccountId,
        amount: '5',
        currency: 'AUD',
        sender: AUD_SENDER,
        ...body,
      });
    expect((await simulate({})).json).toEqual({
      status: 'FAILED',
      message: 'virtual account is PENDING; it cannot receive money before it is VERIFIED',
    });
    await a.ok('POST', '/sandbox/virtual-account/approve', { id: onramp.virtualAccountId });
    expect((await simulate({ currency: 'GBP' })).json.status).toBe('INVALID_PARAMETERS');
    expect((await simulate({ amount: '0' })).json.status).toBe('INVALID_PARAMETERS');
    expect((await simulate({ amount: '-5' })).json.status).toBe('INVALID_PARAMETERS');
    expect((await simulate({ sender: { accountNumber: '1' } })).json.status).toBe('INVALID_PARAMETERS');
  });
});

describe('the offramp path', () => {
  it('crypto deposit → confirmed → trade → settled → payment to the exit bank account → settled', async () => {
    const { a } = await startSandbox();
    const receiver = await startReceiver();
    await subscribe(a, receiver, [
      'DEPOSIT_ADDRESS_APPROVED',
      'DEPOSIT_RECEIVED',
      'DEPOSIT_APPROVED',
      'TRADE_CREATED',
      'TRADE_SETTLED',
      'PAYMENT_SETTLED',
    ]);
    const offramp = await usdtOfframp(a);
    await a.ok('POST', '/sandbox/deposit-address/approve', { id: offramp.depositAddressId });
    const deposit = conforms(
      DepositSchema,
      await a.ok('POST', '/sandbox/deposit/simulate', {
        depositAddressId: offramp.depositAddressId,
        amount: '127',
        currency: 'USDT',
        sender: { address: 'TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy', network: 'TRX' },
      }),
    );
    expect(deposit).toMatchObject({
      type: 'CRYPTO',
      amount: '127.000000',
      txFrom: 'TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy',
    });
    expect(deposit.receiverDepositAddress?.id).toBe(offramp.depositAddressId);
    expect(deposit.voutIndexTxKey).toBe(`${deposit.txid}_0`);
    await a.ok('POST', '/sandbox/deposit/confirm', { id: deposit.id });
    const [trade] = (await a.ok('GET', '/trade/list')).list;
    expect(trade).toMatchObject({ fromCurrency: 'USDT', toCurrency: 'GBP', toAmount: '100.00' });
    await a.ok('POST', '/sandbox/trade/settle', { id: trade.id });
    expect(await balanceOf(a, 'GBP')).toBe('100.00');

    await a.ok('POST', '/sandbox/clock/advance', { seconds: 60 });
    // The payment to the bank account is created but not yet settled, so PAYMENT_SETTLED has not fired.
    expect(receiver.events()).toEqual([
      'DEPOSIT_ADDRESS_APPROVED',
      'DEPOSIT_RECEIVED',
      'DEPOSIT_APPROVED',
      'TRADE_CREATED',
      'TRADE_SETTLED',
    ]);
  });

  it('settles the payment with PAYMENT_SETTLED whose reference names the trade, and debits the balance', async () => {
    // Customers are approved by hand (usdtOfframp), so the autopilot's customer steps are put far off.
    const { a } = await startSandbox({
      autopilot: {
        kycSubmittedSeconds: 86_400,
        customerApprovedSeconds: 86_400,
        virtualAccountVerifiedSeconds: 0,
        depositAddressApprovedSeconds: 0,
        depositConfirmedSeconds: 0,
        tradeSettledSeconds: 0,
        paymentSettledSeconds: 3600,
      },
    });
    const receiver = await startReceiver();
    await subscribe(a, receiver, ['TRADE_SETTLED', 'PAYMENT_SETTLED']);
    const offramp = await usdtOfframp(a);
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 0 });
    const deposit = await a.ok('POST', '/sandbox/deposit/simulate', {
      depositAddressId: offramp.depositAddressId,
      amount: '127',
      currency: 'USDT',
      sender: { address: 'TX', network: 'TRX' },
    });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 60 });
    const tradeSettled = receiver.received.find((d) => d.body.event === 'TRADE_SETTLED')?.body.payload;
    expect(tradeSettled.deposit.id).toBe(deposit.id);
    expect(await balanceOf(a, 'GBP')).toBe('100.00');
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 3600 });
    const paymentEvent = receiver.received.find((d) => d.body.event === 'PAYMENT_SETTLED')?.body;
    expect(parseRampEvent(paymentEvent).success).toBe(true);
    expect(paymentEvent.payload).toMatchObject({
      status: 'CONFIRMED',
      reference: tradeSettled.id,
      deductAmount: '100.00',
      deductCurrency: 'GBP',
      receivedAmount: '100.00',
    });
    // The event's payee block is the event variant: bankName, accountNo, currency, beneficiaryName.
    expect(paymentEvent.payload.bankAccount).toEqual({
      bankName: 'Barclays',
      accountNo: '20000012345678',
      currency: 'GBP',
      beneficiaryName: 'Ada Lovelace',
    });
    expect(paymentEvent.payload.createTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const detail = conforms(PaymentSchema, await a.ok('GET', `/payment/detail?id=${paymentEvent.payload.id}`));
    expect(detail.bankAccount).toMatchObject({
      bankName: 'Barclays',
      accountNo: '20000012345678',
      swift: 'BARCGB22',
      beneficiaryName: 'Ada Lovelace',
    });
    expect(await balanceOf(a, 'GBP')).toBe('0.00');
    expect((await a.post('/sandbox/payment/settle', { id: detail.id })).json.status).toBe('FAILED');
    expect((await a.get('/payment/detail?id=nope')).json).toEqual({ status: 'FAILED', message: 'payment not found' });
  });

  it('estimates a payment', async () => {
    const { a } = await startSandbox();
    const estimate = await a.ok('POST', '/payment/estimate', {
      deductCurrency: 'USDT',
      deductAmount: '127',
      receivedCurrency: 'GBP',
    });
    expect(estimate).toMatchObject({
      deductAmount: '127.000000',
      deductCurrency: 'USDT',
      receivedAmount: '100.00',
      receivedCurrency: 'GBP',
      bankCharge: '0.00',
    });
    expect(
      (await a.post('/payment/estimate', { deductCurrency: 'USDT', deductAmount: 'lots', receivedCurrency: 'GBP' }))
        .json.status,
    ).toBe('INVALID_PARAMETERS');
  });
});

describe('the deposit state machine', () => {
  async function receivedDeposit(a: SignedClient): Promise<{ id: string; customerId: string }> {
    const offramp = await usdtOfframp(a);
    await a.ok('POST', '/sandbox/deposit-address/approve', { id: offramp.depositAddressId });
    const deposit = await a.ok('POST', '/sandbox/deposit/simulate', {
      depositAddressId: offramp.depositAddressId,
      amount: '10',
      currency: 'USDT',
      sender: { address: 'TX', network: 'TRX' },
    });
    return { id: deposit.id, customerId: offramp.customerId };
  }

  it('ACTION_REQUIRED needs an attachment before it can be confirmed; the attachment is multipart', async () => {
    const { a } = await startSandbox();
    const receiver = await startReceiver();
    await subscribe(a, receiver, ['DEPOSIT_RECEIVED', 'DEPOSIT_APPROVED', 'DEPOSIT_REJECTED']);
    const { id } = await receivedDeposit(a);
    expect((await a.ok('POST', '/sandbox/deposit/require-action', { id })).status).toBe('ACTION_REQUIRED');
    expect((await a.post('/sandbox/deposit/confirm', { id })).json.message).toMatch(/needs an attachment/);
    const form = new FormData();
    form.set('id', id);
    form.set('file', new Blob(['%PDF-1.4 source of funds'], { type: 'application/pdf' }), 'source-of-funds.pdf');
    const encoded = new Request('http://x', { method: 'POST', body: form });
    const body = Buffer.from(await encoded.arrayBuffer());
    const attached = await a.send({
      method: 'POST',
      target: '/deposit/submitAttachmentFile',
      body,
      contentType: encoded.headers.get('content-type') ?? '',
    });
    expect(attached.json).toEqual({
      status: 'SUCCESS',
      data: { id, fileName: 'source-of-funds.pdf', status: 'ACTION_REQUIRED' },
    });
    expect((await a.ok('POST', '/sandbox/deposit/confirm', { id })).status).toBe('CONFIRMED');
    // Attachments are for ACTION_REQUIRED deposits only.
    const late = await a.send({
      method: 'POST',
      target: '/deposit/submitAttachmentFile',
      body,
      contentType: encoded.headers.get('content-type') ?? '',
    });
    expect(late.json).toEqual({ status: 'FAILED', message: 'cannot attach a file to a deposit in status CONFIRMED' });
    expect((await a.post('/deposit/submitAttachmentFile', { id })).json.status).toBe('INVALID_PARAMETERS');
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 60 });
    // ACTION_REQUIRED has no event of its own.
    expect(receiver.events()).toEqual(['DEPOSIT_RECEIVED', 'DEPOSIT_APPROVED']);
  });

  it('rejects from RECEIVED or ACTION_REQUIRED with DEPOSIT_REJECTED, and rejected deposits stay rejected', async () => {
    const { a } = await startSandbox();
    const { id } = await receivedDeposit(a);
    await a.ok('POST', '/sandbox/deposit/require-action', { id });
    expect((await a.ok('POST', '/sandbox/deposit/reject', { id })).status).toBe('REJECTED');
    expect((await a.post('/sandbox/deposit/confirm', { id })).json.status).toBe('FAILED');
    expect((await a.post('/sandbox/deposit/require-action', { id })).json.status).toBe('FAILED');
    const other = await receivedDeposit(a);
    expect((await a.ok('POST', '/sandbox/deposit/reject', { id: other.id })).status).toBe('REJECTED');
  });

  it('serves detail (with the status filter) and the filtered list, scoped to the partner', async () => {
    const { a, b } = await startSandbox();
    const first = await receivedDeposit(a);
    const second = await receivedDeposit(a);
    await a.ok('POST', '/sandbox/deposit/confirm', { id: second.id });
    conforms(DepositSchema, await a.ok('GET', `/deposit/detail?id=${first.id}`));
    expect((await a.ok('GET', `/deposit/detail?id=${first.id}&status=RECEIVED`)).id).toBe(first.id);
    expect((await a.get(`/deposit/detail?id=${first.id}&status=CONFIRMED`)).json).toEqual({
      status: 'FAILED',
      message: 'deposit not found',
    });
    const list = conforms(pageOf(DepositListItemSchema), await a.ok('GET', '/deposit/list?status=CONFIRMED'));
    expect(list.list.map((item) => item.id)).toEqual([second.id]);
    expect(list.list[0]?.customerName).toBe('Ada Lovelace');
    expect((await a.ok('GET', `/deposit/list?customerId=${first.customerId}`)).total).toBe(1);
    expect((await a.ok('GET', '/deposit/list?currency=USDT')).total).toBe(2);
    expect((await a.ok('GET', '/deposit/list?currency=AUD')).total).toBe(0);
    expect((await a.get('/deposit/list?pageSize=101')).json.status).toBe('INVALID_PARAMETERS');
    expect((await b.get(`/deposit/detail?id=${first.id}`)).json).toEqual({
      status: 'FAILED',
      message: 'deposit not found',
    });
    expect((await b.ok('GET', '/deposit/list')).total).toBe(0);
    expect((await b.post('/sandbox/deposit/confirm', { id: first.id })).json).toEqual({
      status: 'FAILED',
      message: 'deposit not found',
    });
  });

  it('creates no trade when the entry feeds no enabled flow', async () => {
    const { a } = await startSandbox();
    const offramp = await usdtOfframp(a);
    await a.ok('POST', '/autoramp-flow/delete', { id: offramp.flowId });
    await a.ok('POST', '/sandbox/deposit-address/approve', { id: offramp.depositAddressId });
    const deposit = await a.ok('POST', '/sandbox/deposit/simulate', {
      depositAddressId: offramp.depositAddressId,
      amount: '10',
      currency: 'USDT',
      sender: { address: 'TX', network: 'TRX' },
    });
    await a.ok('POST', '/sandbox/deposit/confirm', { id: deposit.id });
    expect((await a.ok('GET', '/trade/list')).total).toBe(0);
    expect(await balanceOf(a, 'USDT')).toBe('10.000000');
  });
});
