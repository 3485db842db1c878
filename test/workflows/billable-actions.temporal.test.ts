/**
 * Fewer billable actions per journey (issue 17): one search-attribute upsert per change of stage,
 * carrying what else the workflow learned since the last one, and no timer started only to be
 * cancelled (a wait has one timer at a time, for its poll or its deadline). The SDK adds one upsert of
 * its own per patch a run passes (`TemporalChangeVersion`), counted apart: 1.0 has no patches
 * (workflows/common/patches.ts); a journey of this code passes none, a deposit 1.1's one.
 */
import type { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositWorkflowId } from '../../workflows/common/messages';
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
  await h?.close();
});

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Each upsert of the history, as attribute name → value (search attributes are plain JSON payloads). */
function upserts(events: HistoryEvent[]): Record<string, unknown>[] {
  return events
    .filter((event) => event.upsertWorkflowSearchAttributesEventAttributes)
    .map((event) => {
      const fields = event.upsertWorkflowSearchAttributesEventAttributes!.searchAttributes?.indexedFields ?? {};
      return Object.fromEntries(
        Object.entries(fields).map(([name, payload]) => [
          name,
          JSON.parse(Buffer.from(payload.data!).toString('utf8')) as unknown,
        ]),
      );
    });
}

/** The SDK's own upsert for each patch a run passes (sdk-core writes the patch ids to TemporalChangeVersion). */
const isPatchUpsert = (upsert: Record<string, unknown>): boolean =>
  Object.keys(upsert).length === 1 && 'TemporalChangeVersion' in upsert;

/** The patches a run passed, from its last patch upsert (each upsert carries every patch so far), and how many upserts that took. */
function patchesOf(upserts: Record<string, unknown>[]): { patches: string[]; upserts: number } {
  const patchUpserts = upserts.filter(isPatchUpsert);
  return {
    patches: [...((patchUpserts.at(-1)?.TemporalChangeVersion as string[] | undefined) ?? [])].sort(),
    upserts: patchUpserts.length,
  };
}

/** The patch markers of a history (sdk-core names them `core_patch`). */
const patchMarkers = (events: HistoryEvent[]): number =>
  events.filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_patch').length;

const anIsoTime = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/) as unknown as string;

const historyOf = async (workflowId: string): Promise<HistoryEvent[]> =>
  (await h.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];

describe('a journey and its deposit, moved by polls', () => {
  it('upsert once per change of stage and cancel no timer', async () => {
    // The harness starts journeys without search attributes, as the Go SDK or the Web UI would.
    const { handle, state, virtualAccountId } = await startActiveJourney(h);
    const journey = await historyOf(handle.workflowId);
    const allJourneyUpserts = upserts(journey);
    // A patch is a marker and an upsert (a billed action): the journey passes 1.4's, once, at its
    // first recording of partner events (PARTNER_EVENTS_RECORDED_BY_ACTIVITY).
    expect(patchesOf(allJourneyUpserts)).toEqual({ patches: ['partner-events-recorded-by-activity'], upserts: 1 });
    expect(patchMarkers(journey)).toBe(1);
    const journeyUpserts = allJourneyUpserts.filter((upsert) => !isPatchUpsert(upsert));
    expect(journeyUpserts.map((upsert) => upsert.RampStage)).toEqual([
      'CREATING_CUSTOMER',
      'AWAITING_KYC',
      'SETTING_UP_RAMPS',
      'AWAITING_ACCOUNTS',
      'ACTIVE',
    ]);
    // The externalId rides on the first upsert, the service's customer id on the first after it is
    // known; each change of stage carries when it happened (RampStageSince), in the same upsert.
    expect(journeyUpserts[0]).toEqual({
      RampStage: 'CREATING_CUSTOMER',
      RampStageSince: anIsoTime,
      RampExternalId: state.externalId,
    });
    expect(journeyUpserts[1]).toEqual({
      RampStage: 'AWAITING_KYC',
      RampStageSince: anIsoTime,
      RampCustomerId: state.customer.id,
    });
    const sinces = journeyUpserts.map((upsert) => Date.parse(upsert.RampStageSince as string));
    expect(sinces).toEqual([...sinces].sort((a, b) => a - b));
    expect(journey.filter((event) => event.timerCanceledEventAttributes)).toEqual([]);

    const deposit = await h.control.simulateFiatDeposit({
      virtualAccountId,
      amount: '60.00',
      currency: 'AUD',
      sender: TEST_AUD_SOURCE,
    });
    await h.reconcile();
    await h.waitForDeposit(deposit.id, (s) => s.stage === 'RECEIVED');
    // RECEIVED is indexed, with the customer, at the wait's first poll (a second here): the deposit
    // waits, so it is indexed, as entered when it was.
    await h.listWorkflowIds(`RampStage = 'RECEIVED' AND RampExternalId = '${state.externalId}'`);
    await h.control.confirmDeposit(deposit.id);
    const traded = await h.waitForDeposit(deposit.id, (s) => s.tradeId !== undefined);
    await h.control.settleTrade(traded.tradeId!);
    await h.waitForDeposit(deposit.id, (s) => s.stage === 'COMPLETED');

    const depositHistory = await historyOf(depositWorkflowId(deposit.id));
    const depositUpserts = upserts(depositHistory);
    // 1.1's one patch of the deposit (DEPOSIT_FIRST_LOOK): one marker and one upsert.
    expect(patchesOf(depositUpserts)).toEqual({ patches: ['deposit-first-look'], upserts: 1 });
    expect(patchMarkers(depositHistory)).toBe(1);
    // Reconciliation starts the deposit at RECEIVED without its customer: the workflow indexes it with
    // RECEIVED's own upsert (no change of stage, but the start indexed no RampStageSince).
    expect(depositUpserts.filter((upsert) => !isPatchUpsert(upsert))).toEqual([
      {
        RampStage: 'RECEIVED',
        RampStageSince: anIsoTime,
        RampExternalId: state.externalId,
        RampCustomerId: state.customer.id,
      },
      { RampStage: 'CONFIRMED', RampStageSince: anIsoTime },
      { RampStage: 'TRADE_CREATED', RampStageSince: anIsoTime },
      { RampStage: 'COMPLETED', RampStageSince: anIsoTime },
    ]);
    // RECEIVED's time is when the deposit entered it, not when its first poll indexed it.
    const received = depositHistory.find(
      (event) =>
        event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.RampStage &&
        upserts([event])[0]!.RampStage === 'RECEIVED',
    )!;
    const indexedAt = Number(received.eventTime!.seconds) * 1000 + Math.floor((received.eventTime!.nanos ?? 0) / 1e6);
    expect(indexedAt - Date.parse(upserts([received])[0]!.RampStageSince as string)).toBeGreaterThanOrEqual(900);
    expect(depositHistory.filter((event) => event.timerCanceledEventAttributes)).toEqual([]);
  }, 180_000);
});

describe('a deposit the service moves on before its first poll', () => {
  it('is read, matched to its journey and introduced to it in one activity, and indexed only where it waits', async () => {
    const { handle, state, virtualAccountId } = await startActiveJourney(h);
    // Confirmed before its workflow starts: its first look reads it CONFIRMED.
    const deposit = await h.control.simulateFiatDeposit({
      virtualAccountId,
      amount: '40.00',
      currency: 'AUD',
      sender: TEST_AUD_SOURCE,
    });
    await h.control.confirmDeposit(deposit.id);
    await h.reconcile();
    const traded = await h.waitForDeposit(deposit.id, (s) => s.tradeId !== undefined);
    await h.control.settleTrade(traded.tradeId!);
    await h.waitForDeposit(deposit.id, (s) => s.stage === 'COMPLETED');
    const journey = await h.waitForJourney(handle, (s) => s.deposits.completedTotals.AUD === '40.00');
    expect(journey.deposits.recent).toEqual([expect.objectContaining({ depositId: deposit.id, stage: 'COMPLETED' })]);

    const history = await historyOf(depositWorkflowId(deposit.id));
    const scheduled = history.flatMap((event) =>
      event.activityTaskScheduledEventAttributes
        ? [event.activityTaskScheduledEventAttributes.activityType!.name!]
        : [],
    );
    // The first look took the journey's first report (RECEIVED); the deposit's own activity reports
    // only its end. No local activity asked the index.
    expect(scheduled[0]).toBe('firstLookAtDeposit');
    expect(scheduled.filter((name) => name === 'reportToJourney')).toHaveLength(1);
    expect(
      history.filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity'),
    ).toEqual([]);
    // RECEIVED was never indexed, nor a stage whose fact was known when the deposit entered it (here
    // CONFIRMED, when reconciliation's repair brought the trade first): the customer rides on the first
    // stage it waited at. It waited at TRADE_CREATED, for the settlement this test made.
    const indexed = upserts(history).filter((upsert) => !isPatchUpsert(upsert));
    expect(indexed[0]).toMatchObject({ RampExternalId: state.externalId, RampCustomerId: state.customer.id });
    expect(indexed.map((upsert) => upsert.RampStage)).toEqual(
      indexed.length === 3 ? ['CONFIRMED', 'TRADE_CREATED', 'COMPLETED'] : ['TRADE_CREATED', 'COMPLETED'],
    );
    expect(indexed.at(-1)).toEqual({ RampStage: 'COMPLETED', RampStageSince: anIsoTime });
  }, 180_000);
});
