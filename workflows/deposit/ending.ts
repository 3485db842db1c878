/**
 * How a deposit ends (workflows/deposit/workflow.ts): a step throws `DepositEnded`, and the run shows the end
 * and returns its outcome (`endDeposit`). Dismissals (a deposit the service does not have) and
 * reversals (a refund after the money had moved) are counted where they are decided.
 */
import { allHandlersFinished, condition } from '@temporalio/workflow';
import type { DepositCourse } from './course';
import type { DepositJourneyLink } from './journey-link';
import type { DepositLedger } from './ledger';
import { countReversal } from './metrics';
import { show } from './showing';
import { REFUND_WHILE_COMPLETING_REVERSES, takesPatch } from '../common/patches';
import { ParkRequest } from '../common/service-failures';
import { countDismissed } from '../common/trust-metrics';

export interface DepositOutcome {
  stage: 'COMPLETED' | 'REJECTED' | 'CANCELLED' | 'DISMISSED' | 'REVERSED';
  reason: string;
}

export class DepositEnded extends Error {
  constructor(readonly outcome: DepositOutcome) {
    super(outcome.reason);
  }
}

/**
 * Shows the end, lets running handlers (an attachment being submitted) finish, and returns it. A
 * refund that arrived while a COMPLETED end was being shown (its report to the journey can wait out a
 * storm) is the deposit's last word: the run ends REVERSED and tells the journey, since the receiver
 * that delivered the refund to this running workflow started no run of its own for it.
 */
export async function endDeposit(course: DepositCourse, outcome: DepositOutcome): Promise<DepositOutcome> {
  course.state.outcome = outcome.reason;
  await show(course, outcome.stage, `nothing: ${outcome.reason}`);
  await condition(allHandlersFinished);
  if (outcome.stage === 'COMPLETED' && course.ledger.refunded() && takesPatch(REFUND_WHILE_COMPLETING_REVERSES)) {
    return endDeposit(course, reversal(course.ledger, course.link).outcome);
  }
  return outcome;
}

export function dismissed(reason: string): DepositEnded {
  countDismissed('depositLifecycle', 'record-not-found');
  return new DepositEnded({ stage: 'DISMISSED', reason });
}

/** Money for a customer rampflow does not serve: an operator decides. */
export function notServed(link: DepositJourneyLink, customerId: string): ParkRequest {
  const reason = link.journeyId
    ? `money arrived for a customer whose journey ${link.journeyId} is not running (ended or never started); retry to track the deposit anyway, or cancel`
    : `money arrived for customer ${customerId}, who has no externalId, so no rampflow journey; retry to track the deposit anyway, or cancel`;
  return new ParkRequest(reason, 'CustomerNotServed');
}

// ---- refunds: the service gives the money back after it had confirmed the deposit ---------------

export function reversal(ledger: DepositLedger, link: DepositJourneyLink): DepositEnded {
  const { state } = ledger;
  const after =
    ledger.trade?.status === 'SETTLED'
      ? 'its trade settled'
      : ledger.trade
        ? 'its trade was created'
        : 'it was confirmed';
  countReversal(state.kind, state.currency, link.reportedStage === 'COMPLETED' ? 'completed' : 'in-flight');
  return new DepositEnded({
    stage: 'REVERSED',
    reason: `the service refunded the deposit after ${after}: its record shows REJECTED`,
  });
}
