/**
 * A journey lives for the customer's life, so it continues as new before its history grows large.
 * The new run must carry the state and the keys of the events already applied.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerEventSignal, depositEventSignal, journeyStateQuery } from '../../workflows/messages';
import type { DepositRecord } from '../../workflows/records';
import { startActiveJourney, startJourneyHarness, TEST_AUD_SOURCE, type JourneyHarness } from '../support/journey-harness';

let h: JourneyHarness;
beforeAll(async () => {
  h = await startJourneyHarness();
});
afterAll(async () => {
  await h.close();
});

describe('continue-as-new', () => {
  it('keeps the journey\'s state and applied event keys across runs', async () => {
    // Deposits reach this journey only through signals (no deposit polling), so what it applies is what we send.
    const { handle, state, virtualAccountId } = await startActiveJourney(h, { timings: { maxHistoryEvents: 100, depositPollIntervalSeconds: 3600 } });
    const firstRunId = (await handle.describe()).runId;

    const deposit = await h.control.simulateFiatDeposit({ virtualAccountId, amount: '20.00', currency: 'AUD', sender: TEST_AUD_SOURCE });
    const record: DepositRecord = { id: deposit.id, customerId: state.customer.id!, status: 'RECEIVED', amount: '20.00', currency: 'AUD', virtualAccountId };
    const key = `DEPOSIT_RECEIVED/${deposit.id}`;
    await handle.signal(depositEventSignal, { key, event: 'DEPOSIT_RECEIVED', record });
    await h.waitForJourney(handle, (s) => s.deposits.some((d) => d.depositId === deposit.id));

    // Grow the history with events that change nothing until the journey continues as new.
    const customer = { id: state.customer.id!, status: 'APPROVED' };
    let sent = 0;
    while ((await handle.describe()).runId === firstRunId) {
      expect(sent).toBeLessThan(200);
      await handle.signal(customerEventSignal, { key: `CUSTOMER_APPROVED/filler-${sent++}`, event: 'CUSTOMER_APPROVED', record: customer });
    }

    const carried = await handle.query(journeyStateQuery);
    expect(carried).toMatchObject({ stage: 'ACTIVE', customer: { id: state.customer.id }, onramp: { virtualAccount: { id: virtualAccountId }, whitelisted: true } });
    expect(carried.deposits.map((d) => d.depositId)).toEqual([deposit.id]);

    // The same key again, even with another record, is not applied a second time in the new run...
    await handle.signal(depositEventSignal, { key, event: 'DEPOSIT_RECEIVED', record: { ...record, id: 'not-a-deposit' } });
    // ...while a new key is.
    const second = await h.control.simulateFiatDeposit({ virtualAccountId, amount: '30.00', currency: 'AUD', sender: TEST_AUD_SOURCE });
    await handle.signal(depositEventSignal, { key: `DEPOSIT_RECEIVED/${second.id}`, event: 'DEPOSIT_RECEIVED', record: { ...record, id: second.id, amount: '30.00' } });
    const after = await h.waitForJourney(handle, (s) => s.deposits.some((d) => d.depositId === second.id));
    expect(after.deposits.map((d) => d.depositId).sort()).toEqual([deposit.id, second.id].sort());
    await handle.terminate('test over');
  });
});
