/**
 * A journey lives for the customer's life, so it continues as new before its history grows large.
 * The new run must carry the state (its bounded view of the deposits included) and the keys of the
 * events already applied.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shownDeposit } from '../../workflows/journey/board';
import { customerEventSignal, journeyStateQuery } from '../../workflows/common/messages';
import {
  startActiveJourney,
  startJourneyHarness,
  TEST_AUD_SOURCE,
  type JourneyHarness,
} from '../support/journey-harness';

let h: JourneyHarness;
beforeAll(async () => {
  h = await startJourneyHarness();
});
afterAll(async () => {
  await h.close();
});

describe('continue-as-new', () => {
  it("keeps the journey's state and applied event keys across runs", async () => {
    const { handle, state, virtualAccountId } = await startActiveJourney(h, { timings: { maxHistoryEvents: 100 } });
    const deposit = await h.control.simulateFiatDeposit({
      virtualAccountId,
      amount: '20.00',
      currency: 'AUD',
      sender: TEST_AUD_SOURCE,
    });
    await h.reconcile();
    await h.waitForJourney(handle, (s) => shownDeposit(s.deposits, deposit.id) !== undefined);

    // Grow the history with events that change nothing until the journey continues as new. With so
    // small a history limit the journey may already have continued as new while it set up or took the
    // deposit, so this waits for a run that took at least ten fillers before it handed over.
    const customer = { id: state.customer.id!, status: 'APPROVED' };
    let fillersRunId = (await handle.describe()).runId;
    let sent = 0;
    let sentToRun = 0;
    for (;;) {
      expect(sent).toBeLessThan(200);
      await handle.signal(customerEventSignal, {
        key: `CUSTOMER_APPROVED/filler-${sent++}`,
        event: 'CUSTOMER_APPROVED',
        record: customer,
      });
      sentToRun++;
      const runId = (await handle.describe()).runId;
      if (runId === fillersRunId) continue;
      if (sentToRun >= 10) break;
      fillersRunId = runId;
      sentToRun = 0;
    }

    const carried = await handle.query(journeyStateQuery);
    expect(carried).toMatchObject({
      stage: 'ACTIVE',
      customer: { id: state.customer.id },
      onramp: { virtualAccount: { id: virtualAccountId }, whitelisted: true },
    });
    expect(shownDeposit(carried.deposits, deposit.id)).toMatchObject({ amount: '20.00', currency: 'AUD' });
    expect(Object.values(carried.deposits.byStage).reduce((sum, count) => sum + count, 0)).toBe(1);

    // A key applied in an earlier run is not applied again in the new one, whatever its record says.
    // One from the middle of the last run's fillers: the last one may have reached the new run.
    await handle.signal(customerEventSignal, {
      key: `CUSTOMER_APPROVED/filler-${sent - Math.ceil(sentToRun / 2)}`,
      event: 'CUSTOMER_DELETED',
      record: { ...customer, status: 'DELETED' },
    });
    expect((await handle.query(journeyStateQuery)).stage).toBe('ACTIVE');
    // ...while a new key is: the service deleted the customer, so the journey closes.
    await handle.signal(customerEventSignal, {
      key: `CUSTOMER_DELETED/${customer.id}`,
      event: 'CUSTOMER_DELETED',
      record: { ...customer, status: 'DELETED' },
    });
    expect(await handle.result()).toEqual({ stage: 'CLOSED', reason: 'the service deleted the customer' });
  });
});
