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
 * parks the deposit in NEEDS_ATTENTION, where a late event or look still resumes it.
 *
 * What it shows and counts is what the service says (workflows/trust.ts). It reads its own record
 * before it shows or reports anything: the deposit's existence, amount, currency and customer, and from
 * the customer its journey. A delivery about a deposit the service does not have ends it DISMISSED,
 * counted, with nothing left waiting. Events routed directly by the receiver carry the webhook's
 * payload: those are hints, which make the deposit read the record they name (the trade, the payment)
 * and take it only when the service's record links it to this deposit.
 */
import { allHandlersFinished, condition, patched, setCurrentDetails, sleep, upsertMemo, workflowInfo } from '@temporalio/workflow';
import { listSearchOptions, patientReadOptions, readOptions } from './activity-options';
import { AppliedKeys } from './applied-keys';
import { workflowNow } from './clock';
import { depositActivities as act } from './deposit-activities';
import { isNewsForJourney } from './deposit-board';
import { DepositEnded, dismissed, notServed, reversal, type DepositOutcome } from './deposit-ending';
import { registerDepositHandlers } from './deposit-handlers';
import { DepositHints } from './deposit-hints';
import { DepositJourneyLink } from './deposit-journey-link';
import { DepositLedger } from './deposit-ledger';
import { JourneyReporter } from './deposit-report';
import { DepositStepClock } from './deposit-step-clock';
import type { DepositLifecycleRequest } from './deposit-input';
import { indexStage } from './indexing';
import type { DepositStage, DepositSummary } from './messages';
import { OperatorDesk } from './operator';
import { depositKindOf as kindOf, isPaymentSettled, type DepositRecord } from './records';
import { RampCustomerId, RampExternalId } from './search-attributes';
import { isAbsent, orPark, ParkRequest, parkRequestFor } from './service-failures';
import { stageEntered } from './stage-metrics';
import { validatedStartInput } from './start-input';
import { PAYLOADS_ARE_HINTS } from './trust';
import { depositTimings } from './timings';
import { deadlinePassed, pollTolerantly, waitForService } from './waiting';

export type { DepositLifecycleInput, DepositLifecycleRequest } from './deposit-input';
export type { DepositOutcome } from './deposit-ending';

/** The patch that reads a completing trade or payment from the service when it came from a payload. */
export const COMPLETES_ON_SERVICE_WORD = 'completes-on-service-word';

export async function depositLifecycle(request: DepositLifecycleRequest): Promise<DepositOutcome> {
  const input = validatedStartInput('depositLifecycle', request);
  const { depositId } = input;
  // Resolved where each is used, from the starter's overrides and the code's defaults (workflows/timings.ts).
  const timings = depositTimings(input.timings);
  /**
   * Set when this run follows the trust rule (PAYLOADS_ARE_HINTS): it reads its own record, holds only
   * records the service gave, and takes a refund as a reversal. Decided before any handler can run (a
   * signal-with-start's signal may be delivered as soon as its handler is set); runs recorded before
   * the rule replay without it.
   */
  const verifiesPayloads = patched(PAYLOADS_ARE_HINTS);
  // What the deposit holds of the service's records, and where they came from (workflows/deposit-ledger.ts).
  const ledger = new DepositLedger(depositId, verifiesPayloads, input.deposit);
  const { state } = ledger;
  // The journey it reports to (workflows/deposit-journey-link.ts), and its current step's deadline.
  const link = new DepositJourneyLink();
  const clock = new DepositStepClock();
  const applied = new AppliedKeys();
  const desk = new OperatorDesk();
  const reporter = new JourneyReporter(depositId);
  const pollDeposit = async () => ledger.applyDeposit(await act.getDeposit.executeWithOptions(readOptions('poll the deposit'), [depositId]));
  /** Deliveries' claims about this deposit, its trade and its payment, waiting for a look. */
  const hints = new DepositHints(depositId, ledger, pollDeposit);

  // ---- events, applied at most once and only forward (workflows/deposit-handlers.ts) -------------

  registerDepositHandlers(depositId, ledger, applied, hints, desk);

  // ---- progress, visible to operators and to the journey ----------------------------------------

  function summary(): DepositSummary {
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

  async function show(stage: DepositStage, waitingFor: string): Promise<void> {
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
    if (isNewsForJourney(link.reportedStage, stage, attentionChanged)) await report();
  }

  /** Tells the journey; false when it is not running (ended, or never started). */
  async function report(): Promise<boolean> {
    if (!link.journeyId) return false;
    // False when the journey has ended meanwhile (the customer was closed); the deposit still finishes on its own.
    if (!(await reporter.report(link.journeyId, { summary: summary(), ...(link.reportedStage ? { previousStage: link.reportedStage } : {}) }))) return false;
    link.reportedStage = state.stage;
    return true;
  }

  // ---- the stages ------------------------------------------------------------------------------

  async function waitOrPark(what: string, settled: () => boolean, pollOnce: () => Promise<void>): Promise<void> {
    const deadlineAt = clock.deadline(() => workflowNow() + timings.stepDeadlineSeconds * 1000);
    const wait = {
      what,
      settled,
      poll: pollOnce,
      hints: { pending: hints.claimNews, look: hints.look },
      pollIntervalMs: timings.pollIntervalSeconds * 1000,
      // Deposits started before the backoff carry no cap: they poll as they always did.
      pollBackoffCapMs: (timings.pollBackoffCapSeconds ?? timings.pollIntervalSeconds) * 1000,
    };
    if (clock.takeLookFirst()) await pollTolerantly(what, pollOnce);
    const outcome = await waitForService({ ...wait, deadlineAt, now: workflowNow });
    if (outcome === 'deadline') throw deadlinePassed(wait);
  }

  /**
   * The deposit's own record, read once before it shows or reports anything. A deposit the service does
   * not have (a forged delivery, a made-up id) is looked for once more after a grace period, for a
   * service that lists a record a moment before it serves it, and then is absent (undefined).
   */
  async function readOwnRecord(): Promise<DepositRecord | undefined> {
    for (let look = 1; ; look++) {
      try {
        return await act.getDeposit.executeWithOptions(patientReadOptions('read the deposit from the service'), [depositId, { confirming: true }]);
      } catch (error) {
        if (!isAbsent(error)) throw parkRequestFor(error, 'reading the deposit');
        if (look >= 2) return undefined;
        await sleep(timings.notFoundGraceSeconds * 1000, { summary: 'look again for a deposit the service does not have' });
      }
    }
  }

  /**
   * Reads what the starter did not know (the record, whose customer it is), then finds the journey to
   * report to. Money for a customer rampflow does not serve parks here: an operator decides.
   */
  async function received(): Promise<DepositStage> {
    if (verifiesPayloads && !ledger.ownRecordRead) {
      const record = await readOwnRecord();
      if (record === undefined) throw dismissed(`the service has no deposit ${depositId}: a delivery named a deposit that does not exist`);
      ledger.takeOwnRecord(record);
      describeInLists(record);
    } else if (!ledger.deposit) {
      const record = await orPark('reading the deposit', () => act.getDeposit.executeWithOptions(patientReadOptions('read the deposit'), [depositId]));
      ledger.applyDeposit(record);
    }
    if (link.externalId === undefined && verifiesPayloads) {
      // The owner comes from the service's record of the deposit and rampflow's own index (or the
      // service's record of the customer), never from what a starter or a payload said.
      const owner = await orPark('finding the deposit\'s journey', () =>
        act.findCustomerJourney.executeWithOptions(patientReadOptions('find the customer\'s journey'), [ledger.deposit!.customerId]),
      );
      if (owner.externalId) link.learnJourney(owner.externalId);
    } else if (link.externalId === undefined) {
      const owner = await orPark('finding the deposit\'s customer', () =>
        act.findCustomerExternalId.executeWithOptions(patientReadOptions('find the customer\'s externalId'), [ledger.deposit!.customerId]),
      );
      if (owner) link.learnJourney(owner);
    }
    await show('RECEIVED', 'the service to confirm the deposit (DEPOSIT_APPROVED)');
    link.noteServedIfReported();
    if (!link.served) throw notServed(link, state.customerId);
    // A trade the service links to this deposit says it was confirmed, whatever the deposit's last read said.
    await waitOrPark('the deposit\'s confirmation', () => ledger.deposit!.status !== 'RECEIVED' || (verifiesPayloads && ledger.trade !== undefined), pollDeposit);
    return stageForDepositStatus();
  }

  /** Lists show a deposit's kind and amount from its memo (client/visibility.ts): the service's, once read. */
  function describeInLists(record: DepositRecord): void {
    const memo = { kind: kindOf(record), amount: record.amount, currency: record.currency };
    const current = workflowInfo().memo ?? {};
    if (current.kind !== memo.kind || current.amount !== memo.amount || current.currency !== memo.currency) upsertMemo(memo);
  }

  /**
   * A run started to report the refund of a deposit whose earlier run COMPLETED (client/deposit-delivery.ts
   * starts it on the service's REJECTED record): it reads the record itself, and tells the journey,
   * whose totals counted the deposit, that the money went back.
   */
  async function reverseCompleted(): Promise<void> {
    const record = await readOwnRecord();
    if (record === undefined) throw dismissed(`the service has no deposit ${depositId}: a delivery named a deposit that does not exist`);
    ledger.takeOwnRecord(record);
    if (record.status !== 'REJECTED') throw new DepositEnded({ stage: 'COMPLETED', reason: `nothing to reverse: the service shows the deposit ${record.status}` });
    const owner = await orPark('finding the deposit\'s journey', () =>
      act.findCustomerJourney.executeWithOptions(patientReadOptions('find the customer\'s journey'), [record.customerId]),
    );
    if (owner.externalId) link.learnJourney(owner.externalId);
    link.reportedStage = 'COMPLETED'; // what the journey counted
    ledger.knowConfirmed();
    throw reversal(ledger, link);
  }

  async function actionRequired(): Promise<DepositStage> {
    await show('ACTION_REQUIRED', 'an operator to submit the attachment the service asked for (update submitAttachment)');
    // An operator's attachment (or the service deciding on its own) moves the deposit on.
    await waitOrPark('an attachment from an operator', () => ledger.attachmentSubmitted || ledger.deposit!.status !== 'ACTION_REQUIRED', pollDeposit);
    if (ledger.deposit!.status === 'ACTION_REQUIRED') {
      await show('ACTION_REQUIRED', 'the service to review the attachment (DEPOSIT_APPROVED)');
      clock.restart();
      await waitOrPark('the service\'s review of the attachment', () => ledger.deposit!.status !== 'ACTION_REQUIRED', pollDeposit);
    }
    return stageForDepositStatus();
  }

  function stageForDepositStatus(): DepositStage {
    switch (ledger.deposit!.status) {
      case 'CONFIRMED':
        return 'CONFIRMED';
      case 'REJECTED':
        if (ledger.refunded()) throw reversal(ledger, link);
        throw new DepositEnded({ stage: 'REJECTED', reason: 'the service rejected or refunded the deposit' });
      case 'ACTION_REQUIRED':
        return 'ACTION_REQUIRED';
      default:
        return verifiesPayloads && ledger.trade ? 'CONFIRMED' : 'RECEIVED';
    }
  }

  /**
   * A wait after confirmation also ends on a refund; its polls read the deposit as well as what they
   * wait for, since a refunded deposit's trade or payout never settles (DEPOSIT_REFUND).
   */
  async function waitUnlessRefunded(what: string, settled: () => boolean, pollOnce: () => Promise<void>): Promise<void> {
    await waitOrPark(what, () => settled() || ledger.refunded(), async () => {
      if (verifiesPayloads) await pollDeposit();
      if (!ledger.refunded()) await pollOnce();
    });
    if (ledger.refunded()) throw reversal(ledger, link);
  }

  async function confirmed(): Promise<DepositStage> {
    await show('CONFIRMED', 'the service to create the trade (TRADE_CREATED)');
    await waitUnlessRefunded('the trade to be created', () => ledger.trade !== undefined, async () => {
      const found = await act.findTradeForDeposit.executeWithOptions(listSearchOptions('look for the deposit\'s trade'), [
        { depositId, customerId: ledger.deposit!.customerId },
      ]);
      if (found) ledger.applyTrade(found);
    });
    return 'TRADE_CREATED';
  }

  async function tradeCreated(): Promise<DepositStage> {
    await show('TRADE_CREATED', `the service to settle trade ${ledger.trade!.id} (TRADE_SETTLED)`);
    await waitUnlessRefunded('the trade to settle', () => ledger.trade!.status !== 'CREATED' && ledger.trade!.status !== 'PENDING', async () => {
      ledger.applyTrade(await act.getTrade.executeWithOptions(readOptions('poll the trade'), [ledger.trade!.id]));
    });
    if (ledger.trade!.status !== 'SETTLED') throw new ParkRequest(`trade ${ledger.trade!.id} ended ${ledger.trade!.status}`, 'TradeNotSettled');
    return 'TRADE_SETTLED';
  }

  async function tradeSettled(): Promise<DepositStage> {
    // An onramp ends when its trade settles: the crypto goes to the customer's exit address.
    if (state.kind === 'ONRAMP') {
      // A read that must get through: a service failing for a while is waited out, not parked on
      // (only a record the service does not have parks the deposit).
      if (ledger.tradeFromPayload && patched(COMPLETES_ON_SERVICE_WORD)) {
        // The service's record replaces the payload's, even where it is behind it.
        const settled = await orPark('reading the settled trade from the service', () => act.getTrade.executeWithOptions(patientReadOptions('confirm the trade with the service'), [ledger.trade!.id, { confirming: true }]));
        ledger.takeServiceTrade(settled);
        if (settled.status !== 'SETTLED') return 'TRADE_CREATED';
      }
      return 'COMPLETED';
    }
    await show('TRADE_SETTLED', 'the service to pay out to the customer\'s bank account (PAYMENT_SETTLED)');
    await waitUnlessRefunded('the payout', () => ledger.payment !== undefined && isPaymentSettled(ledger.payment.status), async () => {
      // No list of payments exists: the poll needs the payment's id, from an event or the trade.
      if (!state.paymentId) ledger.applyTrade(await act.getTrade.executeWithOptions(readOptions('look for the trade\'s payment'), [ledger.trade!.id]));
      if (state.paymentId) ledger.applyPayment(await act.getPayment.executeWithOptions(readOptions('poll the payment'), [state.paymentId]));
    });
    return 'PAYMENT_SETTLED';
  }

  async function paymentSettled(): Promise<DepositStage> {
    if (ledger.paymentFromPayload && patched(COMPLETES_ON_SERVICE_WORD)) {
      // A payment the service does not have (a forged id) fails this read, and the deposit parks.
      const paid = await orPark('reading the payout from the service', () => act.getPayment.executeWithOptions(patientReadOptions('confirm the payout with the service'), [ledger.payment!.id, { confirming: true }]));
      ledger.takeServicePayment(paid);
      if (!isPaymentSettled(paid.status)) return 'TRADE_SETTLED';
    }
    return 'COMPLETED';
  }

  const stages: Partial<Record<DepositStage, () => Promise<DepositStage>>> = {
    RECEIVED: received,
    ACTION_REQUIRED: actionRequired,
    CONFIRMED: confirmed,
    TRADE_CREATED: tradeCreated,
    TRADE_SETTLED: tradeSettled,
    PAYMENT_SETTLED: paymentSettled,
  };

  // ---- the run: the steps from RECEIVED to an end ---------------------------------------------------

  // Every deposit starts at RECEIVED, which moves on at once when the record is already further along.
  // Under the trust rule the deposit finds its journey from its own record, whoever started it.
  if (input.externalId !== undefined && !verifiesPayloads) link.learnJourney(input.externalId);
  try {
    if (input.reversalOf === 'COMPLETED') await reverseCompleted();
    await runSteps();
    throw new DepositEnded({ stage: 'COMPLETED', reason: ledger.completion() });
  } catch (error) {
    if (!(error instanceof DepositEnded)) throw error;
    return end(error.outcome);
  }

  /** Each step in turn until COMPLETED; a step that parks waits for an operator, who resumes or cancels it. */
  async function runSteps(): Promise<void> {
    let stage: DepositStage = 'RECEIVED';
    while (stage !== 'COMPLETED') {
      try {
        const next = await stages[stage]!();
        if (next !== stage) clock.restart();
        stage = next;
      } catch (error) {
        if (!(error instanceof ParkRequest)) throw error;
        await parkUntilResumed(stage, error);
      }
    }
  }

  async function parkUntilResumed(parked: DepositStage, error: ParkRequest): Promise<void> {
    const decision = await desk.park(parked, error, () => void show('NEEDS_ATTENTION', `an operator: ${error.reason}`));
    if (decision.kind === 'cancel') throw new DepositEnded({ stage: 'CANCELLED', reason: decision.reason });
    // An operator's retry of a deposit no journey takes tracks it anyway (reports are then best effort).
    if (error.errorType === 'CustomerNotServed') link.trackWithoutJourney();
    clock.resumed(decision.kind === 'retry');
  }

  /** Shows the end, lets running handlers (an attachment being submitted) finish, and returns it. */
  async function end(outcome: DepositOutcome): Promise<DepositOutcome> {
    state.outcome = outcome.reason;
    await show(outcome.stage, `nothing: ${outcome.reason}`);
    await condition(allHandlersFinished);
    return outcome;
  }
}

