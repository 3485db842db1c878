/**
 * What a deposit (workflows/deposit/workflow.ts) shows of its progress: its stage and what it waits for (the
 * UI's current details, the search attributes, the stage metrics), the kind and amount lists show, and
 * the reports its journey hears (workflows/deposit/report.ts) when a change is news for it.
 */
import { setCurrentDetails, upsertMemo, workflowInfo } from '@temporalio/workflow';
import { isNewsForJourney } from '../journey/board';
import type { DepositCourse } from './course';
import { indexStage } from '../common/indexing';
import type { DepositStage, DepositSummary } from '../common/messages';
import { depositKindOf as kindOf, type DepositRecord } from '../common/records';
import { RampCustomerId, RampExternalId } from '../../observability/search-attributes';
import { stageEntered } from '../common/stage-metrics';

export async function show(course: DepositCourse, stage: DepositStage, waitingFor: string): Promise<void> {
  const { state, desk, link } = course;
  // A step run again to rebuild a carried park shows nothing: the deposit stays shown as parked.
  if (course.carriedParking) return;
  stageEntered(stage, state);
  const attentionChanged = desk.attention !== state.attention;
  // One upsert per change of stage, carrying the customer when the workflow learned it itself (its
  // starter indexes what it knew at start).
  indexStage(stage, [
    ...(link.externalId ? [{ key: RampExternalId, value: link.externalId }] : []),
    ...(link.externalId && state.customerId ? [{ key: RampCustomerId, value: state.customerId }] : []),
  ]);
  state.stage = stage;
  state.waitingFor = waitingFor;
  state.attention = desk.attention;
  setCurrentDetails(`**${stage}**: ${waitingFor}`);
  if (isNewsForJourney(link.reportedStage, stage, attentionChanged)) await report(course);
}

/** Tells the journey; false when it is not running (ended, or never started). */
async function report(course: DepositCourse): Promise<boolean> {
  const { link } = course;
  if (!link.journeyId) return false;
  // False when the journey has ended meanwhile (the customer was closed); the deposit still finishes on its own.
  if (
    !(await course.reporter.report(link.journeyId, {
      summary: summary(course),
      ...(link.reportedStage ? { previousStage: link.reportedStage } : {}),
    }))
  )
    return false;
  link.reportedStage = course.state.stage;
  return true;
}

function summary({ state, desk }: DepositCourse): DepositSummary {
  return {
    depositId: state.depositId,
    kind: state.kind,
    stage: state.stage,
    amount: state.amount,
    currency: state.currency,
    ...(state.tradeId ? { tradeId: state.tradeId } : {}),
    ...(state.paymentId ? { paymentId: state.paymentId } : {}),
    ...(desk.attention ? { attention: desk.attention } : {}),
  };
}

/** Lists show a deposit's kind and amount from its memo (client/visibility.ts): the service's, once read. */
export function describeInLists(record: DepositRecord): void {
  const memo = { kind: kindOf(record), amount: record.amount, currency: record.currency };
  const current = workflowInfo().memo ?? {};
  if (current.kind !== memo.kind || current.amount !== memo.amount || current.currency !== memo.currency)
    upsertMemo(memo);
}
