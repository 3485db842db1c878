/**
 * One deposit, `deposit/<depositId>`: RECEIVED → CONFIRMED (or REJECTED; ACTION_REQUIRED waits for an
 * operator's attachment) → TRADE_CREATED → TRADE_SETTLED → (offramp) PAYMENT_SETTLED → COMPLETED.
 *
 * It stands on its own: whoever hears of the deposit first (the event path, reconciliation) starts it
 * with signal-with-start, so it exists exactly once whether or not its journey runs, and no event races
 * its creation. It tells its customer's journey when it opens, needs someone and ends; money that arrives for a
 * customer rampflow does not serve (no journey, or one that has ended) parks at once for an operator.
 *
 * Each wait has the event path, a poll and a deadline; a deadline or a failure a retry cannot fix
 * parks the deposit in NEEDS_ATTENTION, where a late event or look still resumes it. A wait, or a
 * park, whose run's history has grown (a storm of deliveries) continues as new at the same step, a
 * park still parked (workflows/deposit/carry.ts, workflows/deposit/resume.ts).
 *
 * What it shows and counts is what the service says (workflows/common/trust.ts). It reads its own record
 * before it shows or reports anything: the deposit's existence, amount, currency and customer, and from
 * the customer its journey. A delivery about a deposit the service does not have ends it DISMISSED,
 * counted, with nothing left waiting. Events routed directly by the receiver carry the webhook's
 * payload: those are hints, which make the deposit read the record they name (the trade, the payment)
 * and take it only when the service's record links it to this deposit.
 */
import { continueDepositAsNew, DepositHistoryFull, type CarriedDeposit } from './carry';
import { DepositCourse } from './course';
import { DepositEnded, endDeposit, type DepositOutcome } from './ending';
import { registerDepositHandlers } from './handlers';
import type { DepositLifecycleRequest } from '../common/deposit-input';
import { parkUntilResumed, runCarriedParking } from './resume';
import {
  actionRequired,
  confirmed,
  paymentSettled,
  received,
  reverseCompleted,
  tradeCreated,
  tradeSettled,
  type DepositStep,
} from './steps';
import type { DepositStage } from '../common/messages';
import { ParkedHistoryFull, type CarriedParking } from '../common/operator';
import { ParkRequest } from '../common/service-failures';
import { validatedStartInput } from '../common/start-input';

export type { DepositLifecycleInput, DepositLifecycleRequest } from '../common/deposit-input';
export type { DepositOutcome } from './ending';

/** Each stage's step (workflows/deposit/steps.ts): it runs the stage and returns the next. */
const STEPS: Partial<Record<DepositStage, DepositStep>> = {
  RECEIVED: received,
  ACTION_REQUIRED: actionRequired,
  CONFIRMED: confirmed,
  TRADE_CREATED: tradeCreated,
  TRADE_SETTLED: tradeSettled,
  PAYMENT_SETTLED: paymentSettled,
};

/** @param carriedFromLastRun what the run this one continues as new carried (workflows/deposit/carry.ts) */
export async function depositLifecycle(
  request: DepositLifecycleRequest,
  carriedFromLastRun?: CarriedDeposit,
): Promise<DepositOutcome> {
  const input = validatedStartInput('depositLifecycle', request);
  // Its timings, its ledger of the service's records, its journey, its step's deadline, its operator
  // desk and its hints (workflows/deposit/course.ts), made before any handler can run.
  const course = new DepositCourse(input, carriedFromLastRun);

  // Events, applied at most once and only forward (workflows/deposit/handlers.ts).
  registerDepositHandlers(course);

  // Every deposit starts at RECEIVED, which moves on at once when the record is already further along.
  // Under the trust rule the deposit finds its journey from its own record, whoever started it.
  if (!carriedFromLastRun && input.externalId !== undefined && !course.verifiesPayloads)
    course.link.learnJourney(input.externalId);
  try {
    if (!carriedFromLastRun && input.reversalOf === 'COMPLETED') await reverseCompleted(course);
    const continueAt = await runSteps(course, carriedFromLastRun?.stage ?? 'RECEIVED');
    if (continueAt !== undefined)
      return await continueDepositAsNew(course, input, continueAt.stage, continueAt.parking);
    throw new DepositEnded({ stage: 'COMPLETED', reason: course.ledger.completion() });
  } catch (error) {
    if (!(error instanceof DepositEnded)) throw error;
    return endDeposit(course, error.outcome);
  }
}

/**
 * Each step in turn until COMPLETED; a step that parks waits for an operator, who resumes or cancels
 * it. Returns the step to continue as new at (and the parking to carry, when parked) when a wait or a
 * park found the history full, else undefined.
 */
async function runSteps(
  course: DepositCourse,
  first: DepositStage,
): Promise<{ stage: DepositStage; parking?: CarriedParking } | undefined> {
  let stage: DepositStage = first;
  while (stage !== 'COMPLETED') {
    let parked: ParkRequest;
    try {
      const step = STEPS[stage]!;
      const next = await (course.carriedParking ? runCarriedParking(course, () => step(course)) : step(course));
      if (next !== stage) course.clock.restart();
      stage = next;
      continue;
    } catch (error) {
      if (error instanceof DepositHistoryFull) return { stage };
      if (!(error instanceof ParkRequest)) throw error;
      parked = error;
    }
    try {
      await parkUntilResumed(course, stage, parked);
    } catch (error) {
      if (error instanceof ParkedHistoryFull) return { stage, parking: error.parking };
      throw error;
    }
  }
  return undefined;
}
