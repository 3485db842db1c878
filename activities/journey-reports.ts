/**
 * A deposit's progress report to its journey as an activity (client/journey-report-sender.ts does the
 * offering). One sender per client, so the reports of every deposit this worker runs that wait for
 * the same journey go together, whichever activity offers them (a deposit's first look offers its
 * first report: activities/ramp-activities.ts).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { JourneyReportSender, type OfferTimings, type ReportOutcome } from '../client/journey-report-sender';
import type { DepositReport } from '../workflows/common/messages';

/**
 * One sender per client, shared by every activity of that Temporal worker that offers reports. A
 * rampflow worker is two Temporal workers (workers/worker.ts), each with its client: a deposit's first
 * report goes from the service queue's (its first look), the others from the workflow queue's, so a
 * journey has at most two offers in flight from one rampflow worker.
 */
const senders = new WeakMap<Client, JourneyReportSender>();
const promptSenders = new WeakMap<Client, JourneyReportSender>();
function senderFor(client: Client, prompt: boolean): JourneyReportSender {
  const kept = prompt ? promptSenders : senders;
  let sender = kept.get(client);
  if (!sender) kept.set(client, (sender = new JourneyReportSender(client, prompt ? PROMPT_OFFER_TIMINGS : undefined)));
  return sender;
}

/**
 * A prompt offer asks once, for at most 5 s, then counts as refused: a deposit's first look offers its
 * report while it holds a slot of the service queue, and a journey whose workflow tasks are minutes
 * behind (a flood of forged deliveries, a worker restarting) would hold that slot for the offer's whole
 * 30 s. At 300 customers under the chaos run, first looks held a third of the service queue's slot
 * time that way (docs/guarantees/chaos.md). A report a prompt offer leaves is offered again, under the
 * same key, by the deposit's own report activity on the workflow queue; one the journey took late
 * anyway is recognised there by its key.
 */
export const PROMPT_OFFER_TIMINGS: OfferTimings = { offerDeadlineMs: 5_000, unknownOutcomeBudgetMs: 5_000 };

/**
 * Offers `report` to the journey from the activity running now. Each attempt heartbeats the update id
 * its report goes out in, before it is sent (the first heartbeat reaches Temporal at once, as for
 * creates: activities/creates.ts). An attempt that died waiting for the answer (a killed worker) thus
 * leaves it to the next, which asks the journey for that update's outcome before offering the report
 * again: a report the journey took is never offered again however many others it took meanwhile,
 * which its window of keys could not promise.
 */
export async function offerReport(
  journeyId: string,
  report: DepositReport,
  how: { prompt?: boolean } = {},
): Promise<ReportOutcome> {
  const context = Context.current();
  const sender = senderFor(context.client, how.prompt === true);
  const sentBefore = sentUpdateOf(context.info.heartbeatDetails);
  if (sentBefore !== undefined && (await sender.takenEarlier(journeyId, sentBefore))) return 'taken';
  return sender.offer(journeyId, report, (updateId) => context.heartbeat({ updateId } satisfies SentOffer));
}

export function createJourneyReportActivities() {
  return {
    /** True once the journey took the report; false when no journey runs under that id. A refusal fails the attempt, to be retried. */
    async reportToJourney({ journeyId, report }: { journeyId: string; report: DepositReport }): Promise<boolean> {
      const outcome = await offerReport(journeyId, report);
      if (outcome === 'refused')
        throw ApplicationFailure.retryable('the journey did not take the report now', 'ReportRefused');
      return outcome === 'taken';
    },
  };
}

export type JourneyReportActivities = ReturnType<typeof createJourneyReportActivities>;

/** What a report's attempt heartbeats: the update its report went out in. */
interface SentOffer {
  updateId: string;
}

function sentUpdateOf(details: unknown): string | undefined {
  if (typeof details !== 'object' || details === null) return undefined;
  const { updateId } = details as Partial<SentOffer>;
  return typeof updateId === 'string' ? updateId : undefined;
}
