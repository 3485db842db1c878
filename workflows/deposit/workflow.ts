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
 * park still parked (workflows/deposit/carry.ts).
 *
 * What it shows and counts is what the service says (workflows/common/trust.ts). It reads its own record
 * before it shows or reports anything: the deposit's existence, amount, currency and customer, and from
 * the customer its journey. A delivery about a deposit the service does not have ends it DISMISSED,
 * counted, with nothing left waiting. Events routed directly by the receiver carry the webhook's
 * payload: those are hints, which make the deposit read the record they name (the trade, the payment)
 * and take it only when the service's record links it to this deposit.
 */
import type { DepositLifecycleRequest } from '../schemas';
import type { DepositStage } from '../common/messages';
import { ParkedHistoryFull, type CarriedParking } from '../common/parking';
import { ParkRequest } from '../common/calls';
import { validatedStartInput } from '../common/checks';
import type { CarriedDeposit } from './carry';
import { DepositEnded, DepositHistoryFull, DepositRun, type DepositOutcome } from './run';

export type { DepositLifecycleInput, DepositLifecycleRequest } from '../schemas';
export type { DepositOutcome } from './run';

/** @param carriedFromLastRun what the run this one continues as new carried (workflows/deposit/carry.ts) */
export async function depositLifecycle(
  request: DepositLifecycleRequest,
  carriedFromLastRun?: CarriedDeposit,
): Promise<DepositOutcome> {
  const input = validatedStartInput('depositLifecycle', request);
  // Its timings, its ledger of the service's records, its journey, its step's deadline, its operator
  // desk and its hints (workflows/deposit/run.ts), made before any handler can run.
  const run = new DepositRun(input, carriedFromLastRun);

  // Events, applied at most once and only forward.
  run.registerHandlers();

  // Every deposit starts at RECEIVED, which moves on at once when the record is already further along.
  // It finds its journey from its own record (the trust rule), whoever started it.
  try {
    if (!carriedFromLastRun && input.reversalOf === 'COMPLETED') await run.reverseCompleted();
    const continueAt = await runSteps(run, carriedFromLastRun?.stage ?? 'RECEIVED');
    if (continueAt !== undefined) return await run.continueAsNewAt(continueAt.stage, continueAt.parking);
    throw new DepositEnded({ stage: 'COMPLETED', reason: run.ledger.completion() });
  } catch (error) {
    if (!(error instanceof DepositEnded)) throw error;
    return run.end(error.outcome);
  }
}

/**
 * Each step in turn until COMPLETED (`DepositRun.step`: RECEIVED awaits the confirmation,
 * ACTION_REQUIRED the attachment, CONFIRMED the trade, TRADE_CREATED its settlement, TRADE_SETTLED the
 * payout, PAYMENT_SETTLED confirms it); a step that parks waits for an operator, who resumes or cancels
 * it. Returns the step to continue as new at (and the parking to carry, when parked) when a wait or a
 * park found the history full, else undefined.
 */
async function runSteps(
  run: DepositRun,
  first: DepositStage,
): Promise<{ stage: DepositStage; parking?: CarriedParking } | undefined> {
  let stage: DepositStage = first;
  while (stage !== 'COMPLETED') {
    let parked: ParkRequest;
    try {
      const current = stage;
      const next = await (run.carriedParking ? run.runCarriedParking(() => run.step(current)) : run.step(current));
      if (next !== stage) run.clock.restart();
      stage = next;
      continue;
    } catch (error) {
      if (error instanceof DepositHistoryFull) return { stage };
      if (!(error instanceof ParkRequest)) throw error;
      parked = error;
    }
    try {
      await run.parkUntilResumed(stage, parked);
    } catch (error) {
      if (error instanceof ParkedHistoryFull) return { stage, parking: error.parking };
      throw error;
    }
  }
  return undefined;
}
