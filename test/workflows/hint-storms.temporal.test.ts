/**
 * Forged hints against a deposit (workflows/trust.ts, workflows/waiting.ts), on the real dev server
 * against the sandbox. The harness has no webhook receiver, so every genuine event is lost: the
 * deposit learns what the service did only by a poll, or by a hint a test sends it. Someone holding
 * the webhook token can send hints with made-up ids as often as they like; they must neither keep
 * the deposit from polling nor push a genuine hint out.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as pause } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RampClient } from '../../ramp';
import type { depositLifecycle } from '../../workflows/deposit';
import { depositWorkflowId } from '../../workflows/ids';
import { depositStateQuery, tradeEventSignal } from '../../workflows/messages';
import type { RampEvent, TradeRecord } from '../../workflows/records';
import { startActiveJourney, startJourneyHarness, TEST_AUD_SOURCE, type JourneyHarness } from '../support/journey-harness';

/** A TRADE_CREATED delivery as the receiver routes it: the payload's record, a hint. */
function tradeHint(depositId: string, tradeId: string): RampEvent<TradeRecord> {
  const record = { id: tradeId, status: 'CREATED', depositId, fromAmount: '250.00', fromCurrency: 'AUD', toAmount: '160.00', toCurrency: 'USDT' };
  return { key: `TRADE_CREATED/${tradeId}/${randomUUID()}`, event: 'TRADE_CREATED', record, fromPayload: true };
}

/** The trade the service made of a deposit (the customer has only the one). */
async function serviceTradeOf(ramp: RampClient, customerId: string, depositId: string): Promise<string> {
  for (const item of (await ramp.trades.list({ customerId, pageNum: 1, pageSize: 50 })).list) {
    if ((await ramp.trades.detail({ id: item.id })).deposit.id === depositId) return item.id;
  }
  throw new Error(`the service made no trade of deposit ${depositId}`);
}

/** Polls every 4 s (no backoff); a step may wait 10 minutes before it parks. */
const POLL_SECONDS = 4;
let polling: JourneyHarness;
/** Polls once an hour: within a test, only a hint moves its deposits. */
let hintsOnly: JourneyHarness;

beforeAll(async () => {
  polling = await startJourneyHarness({}, { depositTimings: { pollIntervalSeconds: POLL_SECONDS, pollBackoffCapSeconds: POLL_SECONDS, stepDeadlineSeconds: 600 } });
  hintsOnly = await startJourneyHarness({}, { depositTimings: { pollIntervalSeconds: 3600, pollBackoffCapSeconds: 3600, stepDeadlineSeconds: 86_400 } });
});
afterAll(async () => {
  await polling?.close();
  await hintsOnly?.close();
});

/** A journey's AUD deposit, its workflow waiting in RECEIVED for the service's confirmation. */
async function receivedDeposit(h: JourneyHarness) {
  const { handle: journey, virtualAccountId } = await startActiveJourney(h);
  const deposit = await h.control.simulateFiatDeposit({ virtualAccountId, amount: '250.00', currency: 'AUD', sender: TEST_AUD_SOURCE });
  await h.reconcile();
  await h.waitForDeposit(deposit.id, (s) => s.stage === 'RECEIVED' && s.customerId !== '');
  return { journey, deposit, handle: h.client.workflow.getHandle<typeof depositLifecycle>(depositWorkflowId(deposit.id)) };
}

describe('forged hints do not hold a deposit back', () => {
  it('a forged trade hint more often than the poll interval does not keep the deposit from finding its trade by poll', async () => {
    const { journey, deposit, handle } = await receivedDeposit(polling);
    // The service confirms the deposit and creates its trade; the events are lost.
    await polling.control.confirmDeposit(deposit.id);

    // A forged TRADE_CREATED, a made-up id each time, three times per poll interval. Before the fix
    // each one restarted the poll interval, so the deposit never polled while they kept coming.
    const hintsSent = 15 * 3; // fifteen poll intervals' worth
    let tradeId: string | undefined;
    for (let sent = 0; sent < hintsSent && tradeId === undefined; sent++) {
      await handle.signal(tradeEventSignal, tradeHint(deposit.id, `forged-${randomUUID()}`));
      await pause((POLL_SECONDS * 1000) / 3);
      tradeId = (await handle.query(depositStateQuery)).tradeId;
    }
    expect(tradeId, 'the deposit found its trade by poll while the forged hints kept coming').toBeDefined();
    expect(tradeId).toBe(await serviceTradeOf(polling.ramp, (await handle.query(depositStateQuery)).customerId, deposit.id));
    await handle.terminate('test over');
    await journey.terminate('test over');
  });

  it('a burst of forged trade hints right after the genuine one does not push it out: the deposit takes its trade from the hint', async () => {
    const h = hintsOnly;
    const { journey, deposit, handle } = await receivedDeposit(h);
    const { customerId } = await handle.query(depositStateQuery);
    await h.control.confirmDeposit(deposit.id);
    const tradeId = await serviceTradeOf(h.ramp, customerId, deposit.id);

    // With the worker away the deliveries queue up, so the deposit's next task sees them all at once:
    // the genuine TRADE_CREATED, then ten forged ones.
    await h.stopWorker();
    await handle.signal(tradeEventSignal, tradeHint(deposit.id, tradeId));
    for (let n = 0; n < 10; n++) await handle.signal(tradeEventSignal, tradeHint(deposit.id, `forged-${randomUUID()}`));
    await h.startWorker();

    // The next poll is an hour away: only the genuine hint can bring the trade in.
    const state = await h.waitForDeposit(deposit.id, (s) => s.tradeId !== undefined);
    expect(state.tradeId).toBe(tradeId);
    await handle.terminate('test over');
    await journey.terminate('test over');
  });
});
