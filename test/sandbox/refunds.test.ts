/**
 * Refunds (issue 23; DEPOSIT_REFUND in ramp/assumptions.ts): a confirmed deposit refunded before its
 * trade settles, after it, or after its payment, through `POST /sandbox/deposit/refund`. The deposit
 * shows REJECTED in detail and list, DEPOSIT_REJECTED is delivered with the record, the trade and
 * payment keep their status (a pending one never settles), and the balance gives the amount back.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import {
  BalancesSchema,
  DepositListItemSchema,
  DepositSchema,
  PaymentSchema,
  TradeSchema,
  pageOf,
  parseRampEvent,
} from '../../ramp/schemas';
import { conforms } from './support/conformance';
import { AUD_SENDER, approvedCustomer, startReceiver, startSandbox, subscribe } from './support/sandbox-fixture';
import type { SignedClient } from './support/signed-client';

const balanceOf = async (a: SignedClient, currency: string): Promise<string> =>
  (
    conforms(BalancesSchema, await a.ok('GET', '/balance')).find((entry) => entry.currency === currency) as {
      balance: string;
    }
  ).balance;

/** An AUD onramp whose virtual account takes money from AUD_SENDER; answers a confirmed deposit of 1000.00 and its PENDING trade. */
async function confirmedAudDeposit(
  a: SignedClient,
): Promise<{ depositId: string; tradeId: string; customerId: string }> {
  const customerId = await approvedCustomer(a);
  const wallet = await a.ok('POST', '/sandbox/crypto-address/create', {
    customerId,
    currency: 'USDT',
    network: 'ETH',
    address: '0x00000000000000000000000000000000000000aa',
  });
  const { id: flowId } = await a.ok('POST', '/autoramp-flow/onramp', {
    from: { customerId, currency: 'AUD', whitelist: AUD_SENDER },
    to: wallet.id,
  });
  const { from: virtualAccountId } = await a.ok('GET', `/autoramp-flow/detail?id=${flowId}`);
  await a.ok('POST', '/sandbox/virtual-account/approve', { id: virtualAccountId });
  await a.ok('POST', '/sandbox/clock/advance', { seconds: 30 }); // the sender becomes whitelisted
  const deposit = await a.ok('POST', '/sandbox/deposit/simulate', {
    virtualAccountId,
    amount: '1000.00',
    currency: 'AUD',
    sender: AUD_SENDER,
  });
  await a.ok('POST', '/sandbox/deposit/confirm', { id: deposit.id });
  const [trade] = (await a.ok('GET', `/trade/list?customerId=${customerId}`)).list;
  return { depositId: deposit.id, tradeId: trade.id, customerId };
}

/** A USDT offramp to a GBP bank account: a confirmed deposit of 127 USDT, its settled trade and the PENDING payment. */
async function settledUsdtTrade(a: SignedClient): Promise<{ depositId: string; tradeId: string; paymentId: string }> {
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
  const { from: depositAddressId } = await a.ok('GET', `/autoramp-flow/detail?id=${flowId}`);
  await a.ok('POST', '/sandbox/deposit-address/approve', { id: depositAddressId });
  const deposit = await a.ok('POST', '/sandbox/deposit/simulate', {
    depositAddressId,
    amount: '127',
    currency: 'USDT',
    sender: { address: 'TX', network: 'TRX' },
  });
  await a.ok('POST', '/sandbox/deposit/confirm', { id: deposit.id });
  const [trade] = (await a.ok('GET', '/trade/list')).list;
  const settled = await a.ok('POST', '/sandbox/trade/settle', { id: trade.id });
  return { depositId: deposit.id, tradeId: trade.id, paymentId: settled.paymentId };
}

async function expectShownRejected(a: SignedClient, depositId: string): Promise<void> {
  expect(conforms(DepositSchema, await a.ok('GET', `/deposit/detail?id=${depositId}`)).status).toBe('REJECTED');
  expect((await a.ok('GET', `/deposit/detail?id=${depositId}&status=REJECTED`)).id).toBe(depositId);
  const rejected = conforms(pageOf(DepositListItemSchema), await a.ok('GET', '/deposit/list?status=REJECTED'));
  expect(rejected.list.map((item) => [item.id, item.status])).toEqual([[depositId, 'REJECTED']]);
  expect((await a.ok('GET', '/deposit/list?status=CONFIRMED')).total).toBe(0);
}

describe('a confirmed deposit refunded', () => {
  it('before its trade settles: REJECTED with DEPOSIT_REJECTED, the balance given back, and the trade never settles', async () => {
    const { a } = await startSandbox();
    const receiver = await startReceiver();
    await subscribe(a, receiver, ['DEPOSIT_APPROVED', 'DEPOSIT_REJECTED', 'TRADE_CREATED', 'TRADE_SETTLED']);
    const { depositId, tradeId } = await confirmedAudDeposit(a);
    expect(await balanceOf(a, 'AUD')).toBe('1000.00');

    const refunded = conforms(DepositSchema, await a.ok('POST', '/sandbox/deposit/refund', { id: depositId }));
    expect(refunded).toMatchObject({ id: depositId, status: 'REJECTED', amount: '1000.00', currency: 'AUD' });
    await expectShownRejected(a, depositId);
    expect(await balanceOf(a, 'AUD')).toBe('0.00');
    // The trade is left as it was and can no longer settle: the money went back instead.
    expect(conforms(TradeSchema, await a.ok('GET', `/trade/detail?id=${tradeId}`))).toMatchObject({
      status: 'PENDING',
      deposit: { id: depositId },
    });
    expect((await a.post('/sandbox/trade/settle', { id: tradeId })).json).toEqual({
      status: 'FAILED',
      message: 'cannot settle a trade whose deposit was refunded',
    });

    await a.ok('POST', '/sandbox/clock/advance', { seconds: 60 });
    expect(receiver.events()).toEqual(['DEPOSIT_APPROVED', 'TRADE_CREATED', 'DEPOSIT_REJECTED']);
    const event = parseRampEvent(receiver.received[2]?.body);
    expect(event.success).toBe(true);
    expect(receiver.received[2]?.body.payload).toEqual(await a.ok('GET', `/deposit/detail?id=${depositId}`));
  });

  it('with no trade at all (its entry feeds no flow): REJECTED, the amount debited', async () => {
    const { a } = await startSandbox();
    const customerId = await approvedCustomer(a);
    const address = await a.ok('POST', '/deposit-address/create', { customerId, currency: 'USDC', network: 'ETH' });
    await a.ok('POST', '/sandbox/deposit-address/approve', { id: address.id });
    const deposit = await a.ok('POST', '/sandbox/deposit/simulate', {
      depositAddressId: address.id,
      amount: '10',
      currency: 'USDC',
      sender: { address: '0x01', network: 'ETH' },
    });
    await a.ok('POST', '/sandbox/deposit/confirm', { id: deposit.id });
    expect((await a.ok('POST', '/sandbox/deposit/refund', { id: deposit.id })).status).toBe('REJECTED');
    expect(await balanceOf(a, 'USDC')).toBe('0.000000');
  });

  it('after its trade settled: the trade stays SETTLED, the deposit shows REJECTED, and the refund is a movement of its own', async () => {
    const { a } = await startSandbox();
    const receiver = await startReceiver();
    await subscribe(a, receiver, ['DEPOSIT_REJECTED', 'TRADE_SETTLED']);
    const { depositId, tradeId } = await confirmedAudDeposit(a);
    const settled = conforms(TradeSchema, await a.ok('POST', '/sandbox/trade/settle', { id: tradeId }));
    expect(await balanceOf(a, 'AUD')).toBe('0.00');

    expect((await a.ok('POST', '/sandbox/deposit/refund', { id: depositId })).status).toBe('REJECTED');
    await expectShownRejected(a, depositId);
    expect(await a.ok('GET', `/trade/detail?id=${tradeId}`)).toEqual(settled);
    // The AUD had been converted, so the refund leaves the partner owing it.
    expect(await balanceOf(a, 'AUD')).toBe('-1000.00');

    await a.ok('POST', '/sandbox/clock/advance', { seconds: 60 });
    expect(receiver.events()).toEqual(['TRADE_SETTLED', 'DEPOSIT_REJECTED']);
    expect(receiver.received[1]?.body.payload).toMatchObject({ id: depositId, status: 'REJECTED' });
  });

  it('after its offramp payment settled: the payment stays CONFIRMED; delivered under both names when subscribed under both', async () => {
    const { a } = await startSandbox();
    const receiver = await startReceiver();
    await subscribe(a, receiver, ['DEPOSIT_REJECTED', 'deposit.rejected', 'PAYMENT_SETTLED']);
    const { depositId, tradeId, paymentId } = await settledUsdtTrade(a);
    const paid = conforms(PaymentSchema, await a.ok('POST', '/sandbox/payment/settle', { id: paymentId }));
    expect(paid.status).toBe('CONFIRMED');

    expect((await a.ok('POST', '/sandbox/deposit/refund', { id: depositId })).status).toBe('REJECTED');
    await expectShownRejected(a, depositId);
    expect(await a.ok('GET', `/payment/detail?id=${paymentId}`)).toEqual(paid);
    expect((await a.ok('GET', `/trade/detail?id=${tradeId}`)).status).toBe('SETTLED');
    expect(await balanceOf(a, 'USDT')).toBe('-127.000000');

    await a.ok('POST', '/sandbox/clock/advance', { seconds: 60 });
    expect(receiver.events()).toEqual(['PAYMENT_SETTLED', 'DEPOSIT_REJECTED', 'deposit.rejected']);
    expect(receiver.received[1]?.body.payload).toEqual(receiver.received[2]?.body.payload);
    expect(receiver.received[1]?.body.payload).toMatchObject({ id: depositId, status: 'REJECTED' });
    const deliveries = await a.ok('GET', `/sandbox/deliveries?payloadId=${depositId}`);
    expect(
      deliveries.map((delivery: { event: string; status: string }) => [delivery.event, delivery.status]).sort(),
    ).toEqual([
      ['DEPOSIT_REJECTED', 'DELIVERED'],
      ['deposit.rejected', 'DELIVERED'],
    ]);
  });

  it('after its trade settled but before the payment: the payment never settles', async () => {
    const { a } = await startSandbox();
    const { depositId, paymentId } = await settledUsdtTrade(a);
    await a.ok('POST', '/sandbox/deposit/refund', { id: depositId });
    expect((await a.post('/sandbox/payment/settle', { id: paymentId })).json).toEqual({
      status: 'FAILED',
      message: 'cannot settle a payment whose deposit was refunded',
    });
    expect((await a.ok('GET', `/payment/detail?id=${paymentId}`)).status).toBe('PENDING');
  });

  it('while the autopilot runs: the pending trade is left alone, quietly', async () => {
    const lines: { path?: string; outcome?: string; msg?: string }[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write: (chunk: Buffer, _encoding, done) => (lines.push(JSON.parse(chunk.toString('utf8'))), done()),
      }),
    );
    // Accounts and deposits are moved by hand; the trade would settle 60 s after it was created.
    const { a } = await startSandbox({
      logger,
      autopilot: { virtualAccountVerifiedSeconds: 86_400, depositConfirmedSeconds: 86_400, tradeSettledSeconds: 60 },
    });
    const { depositId, tradeId } = await confirmedAudDeposit(a);
    await a.ok('POST', '/sandbox/deposit/refund', { id: depositId });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 120 });
    expect((await a.ok('GET', `/trade/detail?id=${tradeId}`)).status).toBe('PENDING');
    expect(lines.filter((line) => line.msg !== 'request')).toEqual([]);
  });
});

describe('refunds the sandbox refuses', () => {
  it("answers an unknown, another partner's, a not yet confirmed or an already rejected deposit like its other bad simulation calls, and logs each call", async () => {
    const lines: { method?: string; path?: string; statusCode?: number; outcome?: string }[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write: (chunk: Buffer, _encoding, done) => (lines.push(JSON.parse(chunk.toString('utf8'))), done()),
      }),
    );
    const { a, b } = await startSandbox({ logger });
    const { depositId } = await confirmedAudDeposit(a);

    expect((await a.post('/sandbox/deposit/refund', { id: 'no-such-deposit' })).json).toEqual({
      status: 'FAILED',
      message: 'deposit not found',
    });
    expect((await b.post('/sandbox/deposit/refund', { id: depositId })).json).toEqual({
      status: 'FAILED',
      message: 'deposit not found',
    });
    expect((await a.post('/sandbox/deposit/refund', {})).json.status).toBe('INVALID_PARAMETERS');
    expect((await a.ok('POST', '/sandbox/deposit/refund', { id: depositId })).status).toBe('REJECTED');
    const again = await a.post('/sandbox/deposit/refund', { id: depositId });
    expect(again.status).toBe(422);
    expect(again.json).toEqual({ status: 'FAILED', message: 'cannot refund a deposit in status REJECTED' });
    // A deposit the service has not confirmed is rejected, not refunded.
    const customerId = await approvedCustomer(a);
    const address = await a.ok('POST', '/deposit-address/create', { customerId, currency: 'USDT', network: 'ETH' });
    await a.ok('POST', '/sandbox/deposit-address/approve', { id: address.id });
    const received = await a.ok('POST', '/sandbox/deposit/simulate', {
      depositAddressId: address.id,
      amount: '5',
      currency: 'USDT',
      sender: { address: '0x01', network: 'ETH' },
    });
    expect((await a.post('/sandbox/deposit/refund', { id: received.id })).json).toEqual({
      status: 'FAILED',
      message: 'cannot refund a deposit in status RECEIVED',
    });
    // Only the one refund moved the balance.
    expect(await balanceOf(a, 'AUD')).toBe('0.00');

    const refundLines = lines
      .filter((line) => line.path === '/sandbox/deposit/refund')
      .map((line) => [line.method, line.statusCode, line.outcome]);
    expect(refundLines).toEqual([
      ['POST', 422, 'FAILED'],
      ['POST', 422, 'FAILED'],
      ['POST', 422, 'INVALID_PARAMETERS'],
      ['POST', 200, 'SUCCESS'],
      ['POST', 422, 'FAILED'],
      ['POST', 422, 'FAILED'],
    ]);
  });
});
