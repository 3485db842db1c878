/**
 * A deposit report whose answer is lost (client/journey-report-sender.ts): the sender asks the same
 * update again, so the journey takes the batch once, by Temporal's own rule for a repeated update id,
 * not only by the window of report keys it remembers (which a storm can outrun). The answer is lost
 * for real: the journey's worker is stopped, so each ask runs out its deadline without an answer. And
 * an attempt that died with its offer in flight leaves the update id to the report's next attempt
 * (activities/journey-reports.ts), which asks for that update's outcome instead of offering again.
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { DefaultLogger } from '@temporalio/worker';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createJourneyReportActivities } from '../../activities/journey-reports';
import { JourneyReportSender } from '../../client/journey-report-sender';
import { addDecimal } from '../../workflows/journey/board';
import { REPORT_KEYS_REMEMBERED } from '../../workflows/journey/carry';
import {
  type DepositReport,
  depositReportKey,
  depositReportsUpdate,
  type DepositSummary,
  journeyStateQuery,
} from '../../workflows/common/messages';
import { type JourneyHarness, startActiveJourney, startJourneyHarness } from '../support/journey-harness';

let h: JourneyHarness;
beforeAll(async () => {
  h = await startJourneyHarness();
});
afterAll(async () => {
  await h.close();
});

const deposit: Omit<DepositSummary, 'stage'> = {
  depositId: 'lost-answer-1',
  kind: 'ONRAMP',
  amount: '123.45',
  currency: 'AUD',
};
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
  const accepted = (history.events ?? []).filter(
    (event) => event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'depositReports',
  );
  expect(accepted).toHaveLength(2);
});

it("counts an offer refused once its answer stays unknown past the budget, for the report's next attempt to offer again", async () => {
  const { handle } = await startActiveJourney(h);
  const sender = new JourneyReportSender(h.client, { offerDeadlineMs: 200, unknownOutcomeBudgetMs: 1_000 });
  await h.stopWorker();
  try {
    expect(await sender.offer(handle.workflowId, report(1, 'RECEIVED'))).toBe('refused');
  } finally {
    await h.startWorker();
  }
  // The update the server admitted meanwhile still runs once the worker is back; the next attempt's
  // offer (a new update with the same key) is then recognised by the journey's key window. The next
  // attempt is another activity attempt, with the sender's own budgets: the 1 s one above would refuse
  // it too on a loaded machine, while the restarted worker replays the journey.
  expect(await new JourneyReportSender(h.client).offer(handle.workflowId, report(1, 'RECEIVED'))).toBe('taken');
  const board = await h.waitForJourney(handle, (state) => state.deposits.byStage.RECEIVED === 1);
  expect(board.deposits.byStage).toEqual({ RECEIVED: 1 });
});

it('does not offer again a report the journey took from an attempt that died, however many reports came between', async () => {
  const { handle } = await startActiveJourney(h);
  const sender = new JourneyReportSender(h.client);
  expect(await sender.offer(handle.workflowId, report(1, 'RECEIVED'))).toBe('taken');

  // The report's first attempt sent its offer and died before the answer: the journey took it.
  const sentByTheDeadAttempt = 'offer-of-an-attempt-that-died';
  await handle.executeUpdate(depositReportsUpdate, {
    args: [[report(2, 'COMPLETED', 'RECEIVED')]],
    updateId: sentByTheDeadAttempt,
  });
  // Then more deposits open and end than the journey remembers keys or lists ended deposits.
  let total = deposit.amount;
  const others = Array.from({ length: REPORT_KEYS_REMEMBERED }, (_, n) => ({
    depositId: `later-${n}`,
    kind: 'ONRAMP' as const,
    amount: `${n + 1}.00`,
    currency: 'AUD',
  }));
  await Promise.all(
    others.map(async (other) => {
      total = addDecimal(total, other.amount);
      expect(
        await sender.offer(handle.workflowId, {
          key: depositReportKey(other.depositId, 'test', 1),
          progress: { summary: { ...other, stage: 'RECEIVED' } },
        }),
      ).toBe('taken');
      expect(
        await sender.offer(handle.workflowId, {
          key: depositReportKey(other.depositId, 'test', 2),
          progress: { summary: { ...other, stage: 'COMPLETED' }, previousStage: 'RECEIVED' },
        }),
      ).toBe('taken');
    }),
  );

  // The next attempt, with what the dead one heartbeat.
  const env = new MockActivityEnvironment(
    { heartbeatDetails: { updateId: sentByTheDeadAttempt }, startToCloseTimeoutMs: 60_000 },
    { client: h.client, logger: new DefaultLogger('ERROR') },
  );
  const sent: unknown[] = [];
  env.on('heartbeat', (details: unknown) => sent.push(details));
  const { reportToJourney } = createJourneyReportActivities();
  expect(
    await env.run(reportToJourney, { journeyId: handle.workflowId, report: report(2, 'COMPLETED', 'RECEIVED') }),
  ).toBe(true);

  const board = (await handle.query(journeyStateQuery)).deposits;
  expect(board.completedTotals).toEqual({ AUD: total });
  expect(board.byStage).toEqual({ COMPLETED: others.length + 1 });
  // Nothing was offered again.
  expect(sent).toEqual([]);
});

it('heartbeats the update its report goes out in, before the journey answers', async () => {
  const { handle } = await startActiveJourney(h);
  const env = new MockActivityEnvironment(
    { startToCloseTimeoutMs: 60_000 },
    { client: h.client, logger: new DefaultLogger('ERROR') },
  );
  const sent: unknown[] = [];
  env.on('heartbeat', (details: unknown) => sent.push(details));
  const { reportToJourney } = createJourneyReportActivities();
  expect(await env.run(reportToJourney, { journeyId: handle.workflowId, report: report(1, 'RECEIVED') })).toBe(true);
  expect(sent).toEqual([{ updateId: expect.any(String) }]);
  // That id is the update the journey took.
  expect(
    await new JourneyReportSender(h.client).takenEarlier(handle.workflowId, (sent[0] as { updateId: string }).updateId),
  ).toBe(true);
});

it('fails only the offer the journey refuses as malformed; the next offer to that journey is taken', async () => {
  const { handle } = await startActiveJourney(h);
  const sender = new JourneyReportSender(h.client);
  // A report without a key: the journey's validator refuses it for good (a bug in its sender).
  const malformed: DepositReport = {
    key: '',
    progress: { summary: { ...deposit, depositId: 'malformed', stage: 'RECEIVED' } },
  };
  const refused = await sender.offer(handle.workflowId, malformed).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
  expect(String((refused as WorkflowUpdateFailedError).cause?.message)).toMatch(/invalid deposit reports/);
  expect(await sender.offer(handle.workflowId, report(1, 'RECEIVED'))).toBe('taken');
});

it('refuses a report whose amount is not a decimal before taking it, so the totals and the journey carry on', async () => {
  const { handle } = await startActiveJourney(h);
  const sender = new JourneyReportSender(h.client);
  expect(await sender.offer(handle.workflowId, report(1, 'COMPLETED'))).toBe('taken');
  // Applied, '1e3' would make the journey's sum throw in every workflow task that replays it.
  for (const amount of ['1e3', '12,50', ' 5', 'NaN', '9'.repeat(65)]) {
    const forged: DepositReport = {
      key: depositReportKey('not-a-decimal', 'test', 1),
      progress: { summary: { ...deposit, depositId: 'not-a-decimal', amount, stage: 'COMPLETED' } },
    };
    const refused = await sender.offer(handle.workflowId, forged).catch((error: unknown) => error);
    expect(refused, amount).toBeInstanceOf(WorkflowUpdateFailedError);
    expect(String((refused as WorkflowUpdateFailedError).cause?.message)).toMatch(/progress\.summary\.amount/);
  }
  const board = (await handle.query(journeyStateQuery)).deposits;
  expect(board.completedTotals).toEqual({ AUD: deposit.amount });
  expect(board.byStage).toEqual({ COMPLETED: 1 });
  expect(await sender.offer(handle.workflowId, report(2, 'COMPLETED'))).toBe('taken');
});
