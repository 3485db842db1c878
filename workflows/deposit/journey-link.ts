/**
 * Which journey a deposit (workflows/deposit/workflow.ts) reports to, and what it last told it. The reports
 * themselves are sent by the workflow (its `report`); this holds only what they depend on.
 */
import { journeyWorkflowId } from '../common/ids';
import type { DepositStage } from '../common/messages';

export class DepositJourneyLink {
  /** The customer's externalId, and so the journey to report to; undefined when the customer has none we know. */
  externalId: string | undefined;
  journeyId: string | undefined;
  /** The stage the journey last heard, so it can keep its counts right. */
  reportedStage: DepositStage | undefined;
  /** Set once the journey heard of the deposit, or an operator chose to track it without one. */
  served = false;

  /** Indexed with the next stage shown. */
  learnJourney(owner: string): void {
    this.externalId = owner;
    this.journeyId = journeyWorkflowId(owner);
  }

  /** The journey has heard of the deposit (served from then on). */
  noteServedIfReported(): void {
    this.served ||= this.reportedStage !== undefined;
  }

  /** An operator's retry of a deposit no journey takes tracks it anyway (reports are then best effort). */
  trackWithoutJourney(): void {
    this.served = true;
  }
}
