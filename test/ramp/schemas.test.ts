/** Resource, envelope and event schemas: strict on required fields, open to fields the service adds. */
import { describe, expect, it } from 'vitest';
import { EVENT_NAMES, LEGACY_EVENT_NAMES } from '../../ramp/events';
import {
  AutorampFlowSchema,
  BankAccountSchema,
  CustomerSchema,
  DepositSchema,
  FailureEnvelopeSchema,
  PaymentSchema,
  TradeSchema,
  VirtualAccountSchema,
  eventPayloadSchema,
  pageOf,
  parseRampEvent,
  successEnvelope,
} from '../../ramp/schemas';
import * as records from './support/records';

const SAMPLE_PAYLOAD = {
  customer: records.customer,
  virtualAccount: records.virtualAccount,
  depositAddress: records.depositAddress,
  deposit: records.deposit,
  trade: records.trade,
  payment: records.payment,
} as const;

describe('resources', () => {
  it('pass unknown fields through untouched', () => {
    expect(CustomerSchema.parse(records.customer)).toEqual(records.customer);
    expect(DepositSchema.parse({ ...records.deposit, riskScore: 3 })).toMatchObject({ riskScore: 3 });
  });

  it.each([
    ['customer without status', CustomerSchema, { ...records.customer, status: undefined }, 'status'],
    ['deposit with an unknown status', DepositSchema, { ...records.deposit, status: 'LOST' }, 'status'],
    ['deposit amount as a number', DepositSchema, { ...records.deposit, amount: 1500 }, 'amount'],
    [
      'trade without its deposit id',
      TradeSchema,
      { ...records.trade, deposit: { currency: 'AUD', amount: '1' } },
      'deposit.id',
    ],
    ['payment with a non-decimal rate', PaymentSchema, { ...records.payment, rate: '1,52' }, 'rate'],
    [
      'bank account without accountNo',
      BankAccountSchema,
      { ...records.bankAccount, accountNo: undefined },
      'accountNo',
    ],
    ['autoramp flow with an unknown type', AutorampFlowSchema, { ...records.autorampFlow, type: 'SIDERAMP' }, 'type'],
    ['virtual account without id', VirtualAccountSchema, { ...records.virtualAccount, id: undefined }, 'id'],
  ])('refuse a %s, naming the field', (_label, schema, value, field) => {
    const result = schema.safeParse(value);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toContain(field);
  });

  it('accept null for the deposit records present only when applicable', () => {
    expect(
      DepositSchema.safeParse({ ...records.deposit, receiverVirtualAccount: null, txReference: null }).success,
    ).toBe(true);
  });

  it('accept the event variant of the payment bank account', () => {
    const bankAccount = { bankName: 'B', accountNo: '1', currency: 'AUD', beneficiaryName: 'Z' };
    expect(PaymentSchema.safeParse({ ...records.payment, bankAccount }).success).toBe(true);
  });
});

describe('envelopes', () => {
  it('parse a paginated success', () => {
    const body = { status: 'SUCCESS', data: records.page([records.customer], 1), traceId: 't' };
    expect(successEnvelope(pageOf(CustomerSchema)).parse(body)).toEqual(body);
  });

  it('refuse a page without total', () => {
    const result = successEnvelope(pageOf(CustomerSchema)).safeParse({
      status: 'SUCCESS',
      data: { list: [], pageNum: 1, pageSize: 10 },
    });
    expect(result.error?.issues[0]?.path).toEqual(['data', 'total']);
  });

  it('parse the 422 failure body', () => {
    expect(FailureEnvelopeSchema.parse({ status: 'INVALID_PARAMETERS', message: 'pageSize' })).toEqual({
      status: 'INVALID_PARAMETERS',
      message: 'pageSize',
    });
  });
});

describe('events', () => {
  it.each(EVENT_NAMES.map((name) => [name]))('%s carries its detail resource', (name) => {
    const parsed = parseRampEvent({ event: name, payload: payloadFor(name) });
    expect(parsed.success).toBe(true);
    // A status of the wrong type fails every resource's schema, so the payload is really checked.
    expect(eventPayloadSchema(name).safeParse({ ...(payloadFor(name) as object), status: 7 }).success).toBe(false);
  });

  it('map older names to the new ones', () => {
    for (const [legacy, current] of Object.entries(LEGACY_EVENT_NAMES)) {
      const parsed = parseRampEvent({ event: legacy, payload: payloadFor(current) });
      expect(parsed.success && parsed.value.event).toBe(current);
    }
  });

  it('refuse an unknown name, a payload without id, and a payload of the wrong shape, saying why', () => {
    expect(parseRampEvent({ event: 'DEPOSIT_EXPLODED', payload: { id: 'x' } })).toEqual({
      success: false,
      reason: 'unknown event name "DEPOSIT_EXPLODED"',
    });
    const noId = parseRampEvent({ event: 'DEPOSIT_RECEIVED', payload: {} });
    expect(!noId.success && noId.reason).toMatch(/payload\.id/);
    const badAmount = parseRampEvent({ event: 'DEPOSIT_RECEIVED', payload: { ...records.deposit, amount: 'lots' } });
    expect(!badAmount.success && badAmount.reason).toMatch(/DEPOSIT_RECEIVED payload: .*amount/s);
  });
});

function payloadFor(name: (typeof EVENT_NAMES)[number]): unknown {
  if (name.startsWith('CUSTOMER')) return SAMPLE_PAYLOAD.customer;
  if (name.startsWith('VIRTUAL_ACCOUNT')) return SAMPLE_PAYLOAD.virtualAccount;
  if (name.startsWith('DEPOSIT_ADDRESS')) return SAMPLE_PAYLOAD.depositAddress;
  if (name.startsWith('DEPOSIT')) return SAMPLE_PAYLOAD.deposit;
  if (name.startsWith('TRADE')) return SAMPLE_PAYLOAD.trade;
  return SAMPLE_PAYLOAD.payment;
}
