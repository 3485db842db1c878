/**
 * A deposit's progress report to its journey as an activity (client/journey-report-sender.ts does the
 * offering). One sender per client, so the reports of every deposit this worker runs that wait for
 * the same journey go together.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { JourneyReportSender } from '../client/journey-report-sender';
import type { DepositReport } from '../workflows/deposit-reports';

export function createJourneyReportActivities() {
  const senders = new WeakMap<Client, JourneyReportSender>();
  const senderFor = (client: Client): JourneyReportSender => {
    let sender = senders.get(client);
    if (!sender) senders.set(client, (sender = new JourneyReportSender(client)));
    return sender;
  };
  return {
    /** True once the journey took the report; false when no journey runs under that id. A refusal fails the attempt, to be retried. */
    async reportToJourney({ journeyId, report }: { journeyId: string; report: DepositReport }): Promise<boolean> {
      const outcome = await senderFor(Context.current().client).offer(journeyId, report);
      if (outcome === 'refused') throw ApplicationFailure.retryable('the journey did not take the report now', 'ReportRefused');
      return outcome === 'taken';
    },
  };
}

export type JourneyReportActivities = ReturnType<typeof createJourneyReportActivities>;
