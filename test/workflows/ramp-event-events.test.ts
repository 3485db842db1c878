/**
 * The ramp-event workflow's pure part (workflows/ramp-event/events.ts): a delivery moves a target only
 * once the service's record backs what the event claims, the payload's hint is compared with that
 * record field by field, and the record decides which workflow the event goes to.
 */
import { describe, expect, it } from 'vitest';
import { hintDisagreements, serviceConfirms, targetOf, type EventRoute } from '../../workflows/ramp-event/events';
import { depositWorkflowId, journeyWorkflowId, payoutWorkflowId } from '../../workflows/common/messages';

const payment = { id: 'pay-1', status: 'PENDING', reference: 'trade-1' };

describe("an event's claim, against the service's record", () => {
  it('is confirmed by the status it names, or by one further along', () => {
    expect(serviceConfirms('DEPOSIT_APPROVED', 'CONFIRMED')).toBe(true);
    expect(serviceConfirms('CUSTOMER_APPROVED', 'DELETED')).toBe(true);
  });

  it('is not confirmed by a record that has not got there', () => {
    expect(serviceConfirms('DEPOSIT_APPROVED', 'RECEIVED')).toBe(false);
    expect(serviceConfirms('CUSTOMER_DELETED', 'APPROVED')).toBe(false);
    expect(serviceConfirms('TRADE_SETTLED', 'PENDING')).toBe(false);
  });

  it('of a record being received or created is confirmed by the record existing', () => {
    expect(serviceConfirms('DEPOSIT_RECEIVED', 'ANY')).toBe(true);
    expect(serviceConfirms('TRADE_CREATED', 'ANY')).toBe(true);
  });
});

describe("a payload's hint, against the service's record", () => {
  const route: EventRoute = { signal: 'payment', depositId: 'dep-1', tradeId: 'trade-1', record: payment };

  it('names the fields the payload got wrong', () => {
    expect(hintDisagreements({ status: 'SETTLED', reference: 'trade-2' }, 'PENDING', route)).toEqual([
      'status',
      'reference',
    ]);
  });

  it('names nothing when the payload agrees, and ignores fields the record does not say', () => {
    expect(hintDisagreements({ status: 'PENDING', reference: 'trade-1', customerId: 'x' }, 'PENDING', route)).toEqual(
      [],
    );
  });
});

describe("an event's target, by the service's record", () => {
  it('is the deposit for deposit, trade and payment events', () => {
    const deposit = { id: 'dep-1', customerId: 'cus-1', status: 'RECEIVED', amount: '1', currency: 'USDT' };
    expect(targetOf({ signal: 'deposit', customerId: 'cus-1', record: deposit })).toBe(depositWorkflowId('dep-1'));
    expect(targetOf({ signal: 'payment', depositId: 'dep-2', tradeId: 'trade-1', record: payment })).toBe(
      depositWorkflowId('dep-2'),
    );
  });

  it("is the payout a payment's reference names when it names no trade", () => {
    expect(targetOf({ signal: 'payout', reference: 'po-7', record: payment })).toBe(payoutWorkflowId('po-7'));
  });

  it("is the customer's journey for customer events", () => {
    expect(targetOf({ signal: 'customer', externalId: 'ext-1', record: { id: 'cus-1', status: 'APPROVED' } })).toBe(
      journeyWorkflowId('ext-1'),
    );
  });
});
