/**
 * A refund that arrives after the deposit's completed run was removed at retention (`temporal
 * workflow delete`): nothing of rampflow's remembers that the deposit completed, so the fresh run
 * the refund starts recognises the reversal from the service's records (a trade names the deposit:
 * the service had confirmed it). The journey's completed totals drop the amount, and the partner
 * hears `deposit.reversed`, not `deposit.rejected`. The sandbox's clock starts further back than the
 * namespace's retention, so the deposits' trades are as old as retention requires of a removed run's
 * (a run deleted within the retention is another case: refund-after-unseen-completion.temporal.test.ts).
 */
import { type WorkflowHandle, WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECENT_DEPOSITS_SHOWN, shownDeposit } from '../../workflows/journey/board';
import { depositWorkflowId, type JourneyState, journeyStateQuery } from '../../workflows/common/messages';
import type { RampEventResult } from '../../workflows/ramp-event/events';
import { type JourneyHarness, startJourneyHarness } from '../support/journey-harness';
import { type PartnerEventsUnderTest, startPartnerEvents } from '../support/partner-event-wiring';
import { pastTheRetention } from '../support/temporal';
import { until } from '../support/until';
import { type OfframpByWebhooks, startOfframpByWebhooks } from './support/offramp-by-webhooks';

const EVENTS_ONLY_DEPOSITS = { pollIntervalSeconds: 3600, stepDeadlineSeconds: 86_400, notFoundGraceSeconds: 1 };
const SENDER = { address: '0x0000000000000000000000000000000000000001', network: 'ETH' };

let h: JourneyHarness;
let events: PartnerEventsUnderTest;
let customer: OfframpByWebhooks;
let journey: WorkflowHandle;
let externalId: string;
let depositAddressId: string;

beforeAll(async () => {
  events = await startPartnerEvents();
  h = await startJourneyHarness(
    { clock: { frozen: true, startTime: await pastTheRetention() } },
    { depositTimings: EVENTS_ONLY_DEPOSITS, partnerEvents: events.wiring },
  );
  customer = await startOfframpByWebhooks(h, EVENTS_ONLY_DEPOSITS);
  ({ journey, externalId, depositAddressId } = customer);
});
afterAll(async () => {
  await customer?.receiver.close();
  await h?.close();
  await events?.close();
});

const deliver = () => customer.deliver();
const totals = (state: JourneyState) => ({
  completed: state.deposits.completedTotals.USDT,
  reversed: state.deposits.reversedTotals.USDT,
});

/** A deposit confirmed, traded, paid out and COMPLETED, the journey's board showing it. */
async function completedDeposit(amount: string): Promise<{ depositId: string; handle: WorkflowHandle }> {
  const deposit = await h.control.simulateCryptoDeposit({ depositAddressId, amount, currency: 'USDT', sender: SENDER });
  const depositId = deposit.id;
  await h.control.confirmDeposit(depositId);
  await deliver();
  const traded = await h.waitForDeposit(depositId, (s) => s.tradeId !== undefined);
  await h.control.settleTrade(traded.tradeId!);
  const trade = await h.ramp.trades.detail({ id: traded.tradeId! });
  await h.control.settlePayment(trade.paymentId as string);
  await deliver();
  const handle = h.client.workflow.getHandle(depositWorkflowId(depositId));
  expect(await handle.result()).toMatchObject({ stage: 'COMPLETED' });
  await h.waitForJourney(journey, (s) => shownDeposit(s.deposits, depositId)?.stage === 'COMPLETED');
  return { depositId, handle };
}

/** Retention removes the deposit's completed run: nothing of rampflow's remembers that it completed. */
async function removeAtRetention(handle: WorkflowHandle): Promise<void> {
  await h.client.workflowService.deleteWorkflowExecution({
    namespace: h.client.options.namespace,
    workflowExecution: { workflowId: handle.workflowId },
  });
  // The server deletes asynchronously: the refund must find no run of the deposit at all.
  await until(
    'the run to be deleted',
    () =>
      handle.describe().then(
        () => undefined,
        (error: unknown) => (error instanceof WorkflowNotFoundError ? true : Promise.reject(error)),
      ),
    120_000,
  );
}

/** The service refunds the deposit and its DEPOSIT_REJECTED arrives: the run it starts must end REVERSED. */
async function refund(depositId: string, handle: WorkflowHandle): Promise<void> {
  await h.control.refundDeposit(depositId);
  await deliver();
  expect(
    (await h.client.workflow.getHandle(`event/DEPOSIT_REJECTED/${depositId}`).result()) as RampEventResult,
  ).toMatchObject({ outcome: 'ROUTED', target: handle.workflowId });
  expect(await handle.result()).toMatchObject({ stage: 'REVERSED' });
}

/** The types of the partner's events about one deposit, once one of them is `deposit.reversed`. */
async function partnerHeardOf(depositId: string): Promise<string[]> {
  const heard = await until(
    'the partner to hear of the reversal',
    async () => {
      const ofDeposit = events.endpoint
        .eventsOf(externalId)
        .filter((event) => (event.data as { depositId?: string }).depositId === depositId);
      return ofDeposit.some((event) => event.type === 'deposit.reversed') ? ofDeposit : undefined;
    },
    60_000,
  );
  return heard.map((event) => event.type);
}

describe('a refund of a completed deposit whose workflow was removed at retention', () => {
  it("is recognised as a reversal from the service's records: the totals drop it and the partner hears deposit.reversed", async () => {
    const { depositId, handle } = await completedDeposit('14.000000');
    expect(totals(await journey.query(journeyStateQuery))).toEqual({ completed: '14.000000', reversed: undefined });
    await removeAtRetention(handle);

    await refund(depositId, handle);
    const state = await h.waitForJourney(journey, (s) => shownDeposit(s.deposits, depositId)?.stage === 'REVERSED');
    expect(totals(state)).toEqual({ completed: '0.000000', reversed: '14.000000' });
    expect(state.deposits.byStage.COMPLETED ?? 0).toBe(0);
    expect(await partnerHeardOf(depositId)).toEqual(['deposit.received', 'deposit.completed', 'deposit.reversed']);
  });

  it("is, even once the journey's board no longer lists the deposit: never news of a rejection", async () => {
    const { depositId, handle } = await completedDeposit('15.000000');
    // Five deposits rejected since push it out of the board's recent list.
    for (let n = 0; n < RECENT_DEPOSITS_SHOWN; n++) {
      const rejected = await h.control.simulateCryptoDeposit({
        depositAddressId,
        amount: '1.000000',
        currency: 'USDT',
        sender: SENDER,
      });
      await h.control.rejectDeposit(rejected.id);
    }
    await deliver();
    await h.waitForJourney(journey, (s) => shownDeposit(s.deposits, depositId) === undefined);
    await removeAtRetention(handle);

    await refund(depositId, handle);
    const state = await h.waitForJourney(journey, (s) => shownDeposit(s.deposits, depositId)?.stage === 'REVERSED');
    expect(totals(state)).toEqual({ completed: '0.000000', reversed: '29.000000' });
    expect(state.deposits.byStage).toMatchObject({ REVERSED: 2, REJECTED: RECENT_DEPOSITS_SHOWN });
    expect(state.deposits.byStage.RECEIVED ?? 0).toBe(0);
    expect(await partnerHeardOf(depositId)).toEqual(['deposit.received', 'deposit.completed', 'deposit.reversed']);
  });
});
