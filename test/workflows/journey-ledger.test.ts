/**
 * The journey's ledger (workflows/journey/ledger.ts) is plain data: it is built, fed and carried here
 * without Temporal. Events move its state only forward, its records stay capped, the first reason to
 * end wins, a stage's deadline is set once, and what it carries is taken up by the next run as it was.
 */
import { describe, expect, it } from 'vitest';
import { MAX_ACCOUNT_RECORDS, takeUpCarriedJourney } from '../../workflows/journey/carry';
import { JourneyLedger } from '../../workflows/journey/ledger';
import type { JourneyInput } from '../../workflows/schemas';
import type { CarriedParking } from '../../workflows/common/parking';

const input: JourneyInput = {
  customer: { externalId: 'user-1', realName: 'Test Person', email: 'person@example.test' },
  onramp: { currency: 'AUD', cryptoAddress: { address: '0xwallet' } },
};

describe('the journey ledger', () => {
  it('starts at CREATING_CUSTOMER with a ramp for each the input asks for', () => {
    const { state } = new JourneyLedger(input, undefined);
    expect(state).toMatchObject({ externalId: 'user-1', stage: 'CREATING_CUSTOMER', onramp: { currency: 'AUD' } });
    expect(state.offramp).toBeUndefined();
  });

  it("moves the customer only forward, ignores another customer's record, and ends on DELETED", () => {
    const ledger = new JourneyLedger(input, undefined);
    ledger.applyCustomer({ id: 'cus_1', status: 'APPROVED' });
    ledger.applyCustomer({ id: 'cus_1', status: 'PENDING', kycLink: 'https://kyc.example/late' });
    expect(ledger.state.customer).toEqual({ id: 'cus_1', status: 'APPROVED' });
    ledger.applyCustomer({ id: 'cus_other', status: 'DELETED' });
    expect(ledger.endRequested()).toBe(false);
    ledger.applyCustomer({ id: 'cus_1', status: 'DELETED' });
    expect(ledger.endReason).toBe('the service deleted the customer');
    ledger.requestEnd('closed by an operator');
    expect(ledger.endReason).toBe('the service deleted the customer');
  });

  it('keeps the newest account records up to the cap and updates the ramp that holds one', () => {
    const ledger = new JourneyLedger(input, undefined);
    ledger.state.onramp!.virtualAccount = { id: 'va_0', status: 'PENDING' };
    for (let n = 0; n <= MAX_ACCOUNT_RECORDS; n += 1) ledger.applyAccount({ id: `va_${n}`, status: 'VERIFIED' });
    expect(Object.keys(ledger.accountRecords)).toHaveLength(MAX_ACCOUNT_RECORDS);
    expect(ledger.accountRecords['va_0']).toBeUndefined();
    expect(ledger.state.onramp!.virtualAccount).toEqual({ id: 'va_0', status: 'VERIFIED' });
    ledger.applyAccount({ id: 'va_1', status: 'PENDING' });
    expect(ledger.accountRecords['va_1']!.status).toBe('VERIFIED');
  });

  it('sets a stage deadline once, and carries it, the state and the parking to a ledger the next run takes up', () => {
    const ledger = new JourneyLedger(input, undefined);
    const first = ledger.deadline(60);
    expect(ledger.deadline(3600)).toBe(first);
    ledger.applied.applyOnce('CUSTOMER_APPROVED/cus_1', () =>
      ledger.applyCustomer({ id: 'cus_1', status: 'APPROVED' }),
    );
    const parking = {
      attention: { reason: 'the KYC decision did not come in time', stage: 'AWAITING_KYC', since: 'then' },
    } as CarriedParking;
    const carried = ledger.carry({ sequence: 3, sentOnce: [] }, ['dep_1#1.1'], parking);
    expect(carried).toMatchObject({ stageDeadlineAt: first, parking, depositReportKeys: ['dep_1#1.1'] });

    const next = new JourneyLedger(input, takeUpCarriedJourney(structuredClone(carried)));
    expect(next.state).toEqual(ledger.state);
    expect(next.deadline(3600)).toBe(first);
    let appliedAgain = false;
    next.applied.applyOnce('CUSTOMER_APPROVED/cus_1', () => (appliedAgain = true));
    expect(appliedAgain).toBe(false);

    ledger.forgetDeadline();
    expect('stageDeadlineAt' in ledger.carry({ sequence: 3, sentOnce: [] }, [], undefined)).toBe(false);
    expect('parking' in ledger.carry({ sequence: 3, sentOnce: [] }, [], undefined)).toBe(false);
  });
});
