/**
 * A deposit report whose answer is lost (client/journey-report-sender.ts): the sender asks the same
 * update again, so the journey takes the batch once, by Temporal's own rule for a repeated update id,
 * not only by the window of report keys it remembers (which a storm can outrun). The answer is lost
 * for real: the journey's worker is stopped, so each ask runs out its deadline without an answer.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { JourneyReportSender } from '../../client/journey-report-sender';
import { depositReportKey, type DepositReport } from '../../workflows/deposit-reports';
import { journeyStateQuery, type DepositSummary } from '../../workflows/messages';
import { startActiveJourney, startJourneyHarness, type JourneyHarness } from '../support/journey-harness';

let h: JourneyHarness;
beforeAll(async () => {
  h = await startJourneyHarness();
});
afterAll(async () => {
  await h.close();
});

const deposit: Omit<DepositSummary, 'stage'> = { depositId: 'lost-answer-1', kind: 'ONRAMP', amount: '123.45', currency: 'AUD' };
const report = (n: number, stage: DepositSummary['stage'], previousStage?: DepositSummary['stage']): DepositReport => ({
  key: depositReportKey(deposit.depositId, 'test', n),
  progress: { summary: { ...deposit, stage }, ...(previousStage ? { previousStage } : {}) },
});

it('asks an offer whose answer was lost again as the same update, which the journey takes once', async () => {
  const { handle } = await startActiveJourney(h);
  const sender = new JourneyReportSender(h.client, { offerDeadlineMs: 300, unknownOutcomeBudgetMs: 60_000 });
  expect(await sender.offer(handle.workflowId, report(1, 'RECEIVED'))).toBe('taken');

  await h.stopWorker();
  const completed = sender.offer(handle.workflowId, report(2, 'COMPLETED', 'RECEIVED'));
  // Long enough for several asks to run out their deadline with no answer.
  await new Promise((wake) => setTimeout(wake, 2_000));
  await h.startWorker();
  expect(await completed).toBe('taken');

  const board = (await handle.query(journeyStateQuery)).deposits;
  expect(board.byStage).toEqual({ COMPLETED: 1 });
  expect(board.completedTotals).toEqual({ AUD: '123.45' });
  // Every ask of the batch was the one update: a new id per ask would have left several in the history.
  const history = await handle.fetchHistory();
  const accepted = (history.events ?? []).filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'depositReports');
  expect(accepted).toHaveLength(2);
});

it('counts an offer refused once its answer stays unknown past the budget, for the report\'s next attempt to offer again', async () => {
  const { handle } = await startActiveJourney(h);
  const sender = new JourneyReportSender(h.client, { offerDeadlineMs: 200, unknownOutcomeBudgetMs: 1_000 });
  await h.stopWorker();
  try {
    expect(await sender.offer(handle.workflowId, report(1, 'RECEIVED'))).toBe('refused');
  } finally {
    await h.startWorker();
  }
  // The update the server admitted meanwhile still runs once the worker is back; the next attempt's
  // offer (a new update with the same key) is then recognised by the journey's key window.
  expect(await sender.offer(handle.workflowId, report(1, 'RECEIVED'))).toBe('taken');
  const board = await h.waitForJourney(handle, (state) => state.deposits.byStage.RECEIVED === 1);
  expect(board.deposits.byStage).toEqual({ RECEIVED: 1 });
});
