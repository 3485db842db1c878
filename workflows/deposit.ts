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
import {
  allHandlersFinished,
  condition,
  patched,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import type { CustomerJourneyLookupActivities, RampActivities } from '../activities';
import { changeOptions, listSearchOptions, patientReadOptions, readOptions } from './activity-options';
import { AppliedKeys } from './applied-keys';
import { isAttachmentReference } from './attachment-reference';
import { workflowNow } from './clock';
import { isNewsForJourney } from './deposit-board';
import { JourneyReporter } from './deposit-report';
import type { DepositLifecycleRequest } from './deposit-input';
import { journeyWorkflowId } from './ids';
import { indexChanged } from './indexing';
import {
  depositEventSignal,
  depositStateQuery,
  paymentEventSignal,
  submitAttachmentUpdate,
  tradeEventSignal,
  type DepositStage,
  type DepositState,
  type DepositSummary,
} from './messages';
import { OperatorDesk } from './operator';
import { depositKindOf as kindOf, isPaymentSettled, type DepositRecord, type PaymentRecord, type TradeRecord } from './records';
import { RampCustomerId, RampExternalId, RampStage } from './search-attributes';
import { isAbsent, orPark, ParkRequest, parkRequestFor } from './service-failures';
import { stageEntered } from './stage-metrics';
import { validatedStartInput } from './start-input';
import { advancesDeposit, advancesTrade } from './status-order';
import { countReversal } from './deposit-metrics';
import { countDismissed, countIgnoredHint } from './trust-metrics';
import { isHint, paymentNamesTrade, PAYLOADS_ARE_HINTS, PendingHints, tradeNamesDeposit } from './trust';
import { depositTimings } from './timings';
import { deadlinePassed, pollTolerantly, waitForService } from './waiting';
import { serviceActivities } from './service-activities';

export type { DepositLifecycleInput, DepositLifecycleRequest } from './deposit-input';

export interface DepositOutcome {
  stage: 'COMPLETED' | 'REJECTED' | 'CANCELLED' | 'DISMISSED' | 'REVERSED';
  reason: string;
}

// On the service task queue at the workflow's own priority (workflows/service-activities.ts).
const act = serviceActivities<RampActivities & CustomerJourneyLookupActivities>(changeOptions('a call to the ramp service'));

/** The patch that reads a completing trade or payment from the service when it came from a payload. */
export const COMPLETES_ON_SERVICE_WORD = 'completes-on-service-word';

class DepositEnded extends Error {
  constructor(readonly outcome: DepositOutcome) {
    super(outcome.reason);
  }
}

export async function depositLifecycle(request: DepositLifecycleRequest): Promise<DepositOutcome> {
  const input = validatedStartInput('depositLifecycle', request);
  const { depositId } = input;
  // Resolved where each is used, from the starter's overrides and the code's defaults (workflows/timings.ts).
  const timings = depositTimings(input.timings);
  let deposit: DepositRecord | undefined = input.deposit;
  let trade: TradeRecord | undefined;
  let payment: PaymentRecord | undefined;
  /** Whether the trade and payment held are a webhook's payload (direct routing) rather than the service's record. */
  let tradeFromPayload = false;
  let paymentFromPayload = false;
  let attachmentSubmitted = false;
  const applied = new AppliedKeys();
  const desk = new OperatorDesk();
  const state: DepositState = {
    depositId,
    customerId: deposit?.customerId ?? '',
    kind: deposit ? kindOf(deposit) : 'ONRAMP',
    stage: 'RECEIVED',
    status: deposit?.status ?? 'RECEIVED',
    amount: deposit?.amount ?? '0',
    currency: deposit?.currency ?? '',
    waitingFor: 'the service\'s record of the deposit',
  };
  /** The customer's externalId, and so the journey to report to; undefined when the customer has none we know. */
  let externalId: string | undefined;
  let journeyId: string | undefined;
  /** The stage the journey last heard, so it can keep its counts right. */
  let reportedStage: DepositStage | undefined;
  /** Set once the journey heard of the deposit, or an operator chose to track it without one. */
  let served = false;
  /** Set once the deposit read its own record from the service (a retried stage does not read it again). */
  let ownRecordRead = false;
  /**
   * Set once the service showed the deposit confirmed (its record CONFIRMED, or a trade it links to the
   * deposit): a REJECTED record after that is a refund, a reversal of money that had moved.
   */
  let confirmedOnce = false;
  /**
   * Set when this run follows the trust rule (PAYLOADS_ARE_HINTS): it reads its own record, holds only
   * records the service gave, and takes a refund as a reversal. Decided before any handler can run (a
   * signal-with-start's signal may be delivered as soon as its handler is set); runs recorded before
   * the rule replay without it.
   */
  const verifiesPayloads = patched(PAYLOADS_ARE_HINTS);
  /** Deliveries' claims about this deposit, its trade and its payment, waiting for a look. */
  const reporter = new JourneyReporter(depositId);
  const depositHints = new PendingHints(1);
  const tradeHints = new PendingHints(4);
  const paymentHints = new PendingHints(4);

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
    indexChanged([
      { key: RampStage, value: stage },
      ...(externalId ? [{ key: RampExternalId, value: externalId }] : []),
      ...(externalId && state.customerId ? [{ key: RampCustomerId, value: state.customerId }] : []),
    ]);
    state.stage = stage;
    state.waitingFor = waitingFor;
    state.attention = desk.attention;
    setCurrentDetails(`**${stage}**: ${waitingFor}`);
    if (isNewsForJourney(reportedStage, stage, attentionChanged)) await report();
  }

  /** Tells the journey; false when it is not running (ended, or never started). */
  async function report(): Promise<boolean> {
    if (!journeyId) return false;
    // False when the journey has ended meanwhile (the customer was closed); the deposit still finishes on its own.
    if (!(await reporter.report(journeyId, { summary: summary(), ...(reportedStage ? { previousStage: reportedStage } : {}) }))) return false;
    reportedStage = state.stage;
    return true;
  }

  // ---- events, applied at most once and only forward ---------------------------------------------

  function applyDeposit(record: DepositRecord): void {
    if (record.id !== depositId) return;
    // A refund is the one move back the service reports (DEPOSIT_REFUND, ramp/assumptions.ts): taken
    // only from the service's own record, since hints never reach here.
    const refund = verifiesPayloads && confirmedOnce && record.status === 'REJECTED' && deposit?.status !== 'REJECTED';
    if (deposit && !refund && !advancesDeposit(deposit.status, record.status)) return;
    deposit = record;
    if (verifiesPayloads && record.status === 'CONFIRMED') confirmedOnce = true;
    state.status = record.status;
    state.customerId = record.customerId;
    state.kind = kindOf(record);
    state.amount = record.amount;
    state.currency = record.currency;
  }

  function applyTrade(record: TradeRecord, fromPayload = false): void {
    // Under the trust rule a trade is this deposit's only when the service's record names it.
    if (verifiesPayloads ? !tradeNamesDeposit(record, depositId) : record.depositId !== undefined && record.depositId !== depositId) return;
    if (trade && (trade.id !== record.id || !advancesTrade(trade.status, record.status))) return;
    trade = record;
    if (verifiesPayloads) confirmedOnce = true;
    tradeFromPayload = fromPayload;
    state.tradeId = record.id;
    if (record.paymentId) state.paymentId = record.paymentId;
  }

  function applyPayment(record: PaymentRecord, fromPayload = false): void {
    if (state.paymentId && record.id !== state.paymentId) return;
    // A payment pays out this deposit's trade or none of ours (the service's record names the trade).
    if (verifiesPayloads && trade && !paymentNamesTrade(record, trade.id)) return;
    payment = record;
    paymentFromPayload = fromPayload;
    state.paymentId = record.id;
  }

  // Hints are not de-duplicated by key: each costs at most one read, and a forged delivery that came
  // first must not use up the key of the genuine one.
  setHandler(depositEventSignal, (event) => {
    if (isHint(event)) {
      if (event.record.id === depositId) depositHints.note(event.record);
    } else applied.applyOnce(event.key, () => applyDeposit(event.record));
  });
  setHandler(tradeEventSignal, (event) => (isHint(event) ? tradeHints.note(event.record) : applied.applyOnce(event.key, () => applyTrade(event.record, event.fromPayload === true))));
  setHandler(paymentEventSignal, (event) => (isHint(event) ? paymentHints.note(event.record) : applied.applyOnce(event.key, () => applyPayment(event.record, event.fromPayload === true))));
  setHandler(depositStateQuery, () => ({ ...state, attention: desk.attention }));
  setHandler(
    submitAttachmentUpdate,
    async (attachment) => {
      await act.submitDepositAttachment.executeWithOptions(changeOptions('submit the attachment the service asked for'), [
        { depositId, attachment },
      ]);
      attachmentSubmitted = true;
      return { submitted: true as const };
    },
    {
      validator: (attachment) => {
        if (deposit?.status !== 'ACTION_REQUIRED') throw new Error(`the deposit is ${deposit?.status ?? 'not read yet'}, not ACTION_REQUIRED: the service asked for no attachment`);
        // Only a reference to the stored bytes enters the history (attachments/, the claim check).
        if (!isAttachmentReference(attachment)) throw new Error('expected an attachment reference {reference, sha256, fileName, contentType, size}: store the file first (the client library does)');
      },
    },
  );

  // ---- the stages ------------------------------------------------------------------------------

  let stageDeadlineAt: number | undefined;
  /** Set by an operator's retry: the retried wait asks the service at once instead of after a poll interval. */
  let lookBeforeWaiting = false;

  async function waitOrPark(what: string, settled: () => boolean, pollOnce: () => Promise<void>): Promise<void> {
    stageDeadlineAt ??= workflowNow() + timings.stepDeadlineSeconds * 1000;
    const wait = {
      what,
      settled,
      poll: pollOnce,
      hints: { pending: hintsClaimNews, look: lookAtHints },
      pollIntervalMs: timings.pollIntervalSeconds * 1000,
      // Deposits started before the backoff carry no cap: they poll as they always did.
      pollBackoffCapMs: (timings.pollBackoffCapSeconds ?? timings.pollIntervalSeconds) * 1000,
    };
    if (lookBeforeWaiting) {
      lookBeforeWaiting = false;
      await pollTolerantly(what, pollOnce);
    }
    const outcome = await waitForService({ ...wait, deadlineAt: stageDeadlineAt, now: workflowNow });
    if (outcome === 'deadline') throw deadlinePassed(wait);
  }

  const pollDeposit = async () => applyDeposit(await act.getDeposit.executeWithOptions(readOptions('poll the deposit'), [depositId]));

  // ---- hints: what deliveries claim, looked at through the service (workflows/trust.ts) -----------

  /** A hint is news when it claims what the service has not told the deposit yet. */
  function depositHintIsNews(): boolean {
    const claim = depositHints.claimFor(depositId);
    // A trade the service links to this deposit already says the deposit was confirmed.
    return claim !== undefined && deposit !== undefined && trade === undefined && claim !== deposit.status && advancesDeposit(deposit.status, claim);
  }
  const tradeHintIsNews = (id: string): boolean => {
    const claim = tradeHints.claimFor(id)!;
    return trade === undefined || (id === trade.id && claim !== trade.status && advancesTrade(trade.status, claim));
  };
  const paymentHintIsNews = (id: string): boolean => state.kind === 'OFFRAMP' && (payment === undefined || (id === payment.id && !isPaymentSettled(payment.status)));
  const newest = (hints: PendingHints, isNews: (id: string) => boolean): string | undefined => hints.ids().filter(isNews).at(-1);
  const hintsClaimNews = (): boolean => newest(paymentHints, paymentHintIsNews) !== undefined || newest(tradeHints, tradeHintIsNews) !== undefined || depositHintIsNews();

  /**
   * Answers the furthest claim with one read: a payment (and, when the deposit holds no trade yet, the
   * trade its reference names), else a trade, else the deposit itself. What the service says is taken
   * only when it links the record to this deposit.
   */
  async function lookAtHints(): Promise<void> {
    const paymentId = newest(paymentHints, paymentHintIsNews);
    if (paymentId !== undefined) {
      paymentHints.clear(paymentId);
      const record = await readNamed('payment', () => act.getPayment.executeWithOptions(readOptions('read the payment a delivery named'), [paymentId, { confirming: true }]));
      const ownTrade = trade ?? (record?.reference ? await verifyTrade(record.reference) : undefined);
      if (record && !(ownTrade && paymentNamesTrade(record, ownTrade.id))) return countIgnoredHint('depositLifecycle', 'payment-of-another-trade');
      if (record) applyPayment(record);
      return;
    }
    const tradeId = newest(tradeHints, tradeHintIsNews);
    if (tradeId !== undefined) {
      tradeHints.clear(tradeId);
      await verifyTrade(tradeId);
      return;
    }
    if (depositHintIsNews()) {
      depositHints.clear(depositId);
      await pollDeposit();
    }
  }

  /** Reads a trade a delivery named; takes it only when the service's record names this deposit. */
  async function verifyTrade(tradeId: string): Promise<TradeRecord | undefined> {
    const record = await readNamed('trade', () => act.getTrade.executeWithOptions(readOptions('read the trade a delivery named'), [tradeId, { confirming: true }]));
    if (!record) return undefined;
    if (!tradeNamesDeposit(record, depositId)) {
      countIgnoredHint('depositLifecycle', 'trade-of-another-deposit');
      return undefined;
    }
    applyTrade(record);
    return trade === record ? record : undefined;
  }

  /**
   * A read of a record a delivery named: one the service does not have, or refuses to look up (a
   * made-up id), is a hint to ignore, never a reason to park. A failing service is left to the caller
   * (a poll tolerates it; the next hint or poll looks again).
   */
  async function readNamed<T>(what: 'trade' | 'payment', read: () => Promise<T>): Promise<T | undefined> {
    try {
      return await read();
    } catch (error) {
      if (!isAbsent(error)) throw error;
      countIgnoredHint('depositLifecycle', `${what}-not-found`);
      return undefined;
    }
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
    if (verifiesPayloads && !ownRecordRead) {
      const record = await readOwnRecord();
      if (record === undefined) throw dismissed(`the service has no deposit ${depositId}: a delivery named a deposit that does not exist`);
      // The service's record replaces whatever the starter passed.
      deposit = undefined;
      applyDeposit(record);
      ownRecordRead = true;
      describeInLists(record);
    } else if (!deposit) {
      const record = await orPark('reading the deposit', () => act.getDeposit.executeWithOptions(patientReadOptions('read the deposit'), [depositId]));
      applyDeposit(record);
    }
    if (externalId === undefined && verifiesPayloads) {
      // The owner comes from the service's record of the deposit and rampflow's own index (or the
      // service's record of the customer), never from what a starter or a payload said.
      const owner = await orPark('finding the deposit\'s journey', () =>
        act.findCustomerJourney.executeWithOptions(patientReadOptions('find the customer\'s journey'), [deposit!.customerId]),
      );
      if (owner.externalId) learnJourney(owner.externalId);
    } else if (externalId === undefined) {
      const owner = await orPark('finding the deposit\'s customer', () =>
        act.findCustomerExternalId.executeWithOptions(patientReadOptions('find the customer\'s externalId'), [deposit!.customerId]),
      );
      if (owner) learnJourney(owner);
    }
    await show('RECEIVED', 'the service to confirm the deposit (DEPOSIT_APPROVED)');
    served ||= reportedStage !== undefined;
    if (!served) throw notServed();
    // A trade the service links to this deposit says it was confirmed, whatever the deposit's last read said.
    await waitOrPark('the deposit\'s confirmation', () => deposit!.status !== 'RECEIVED' || (verifiesPayloads && trade !== undefined), pollDeposit);
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
    deposit = undefined;
    applyDeposit(record);
    ownRecordRead = true;
    if (record.status !== 'REJECTED') throw new DepositEnded({ stage: 'COMPLETED', reason: `nothing to reverse: the service shows the deposit ${record.status}` });
    const owner = await orPark('finding the deposit\'s journey', () =>
      act.findCustomerJourney.executeWithOptions(patientReadOptions('find the customer\'s journey'), [record.customerId]),
    );
    if (owner.externalId) learnJourney(owner.externalId);
    reportedStage = 'COMPLETED'; // what the journey counted
    confirmedOnce = true;
    throw reversal();
  }

  function dismissed(reason: string): DepositEnded {
    countDismissed('depositLifecycle', 'record-not-found');
    return new DepositEnded({ stage: 'DISMISSED', reason });
  }

  /** Indexed with the next stage shown. */
  function learnJourney(owner: string): void {
    externalId = owner;
    journeyId = journeyWorkflowId(owner);
  }

  function notServed(): ParkRequest {
    const reason = journeyId
      ? `money arrived for a customer whose journey ${journeyId} is not running (ended or never started); retry to track the deposit anyway, or cancel`
      : `money arrived for customer ${state.customerId}, who has no externalId, so no rampflow journey; retry to track the deposit anyway, or cancel`;
    return new ParkRequest(reason, 'CustomerNotServed');
  }

  async function actionRequired(): Promise<DepositStage> {
    await show('ACTION_REQUIRED', 'an operator to submit the attachment the service asked for (update submitAttachment)');
    // An operator's attachment (or the service deciding on its own) moves the deposit on.
    await waitOrPark('an attachment from an operator', () => attachmentSubmitted || deposit!.status !== 'ACTION_REQUIRED', pollDeposit);
    if (deposit!.status === 'ACTION_REQUIRED') {
      await show('ACTION_REQUIRED', 'the service to review the attachment (DEPOSIT_APPROVED)');
      stageDeadlineAt = undefined;
      await waitOrPark('the service\'s review of the attachment', () => deposit!.status !== 'ACTION_REQUIRED', pollDeposit);
    }
    return stageForDepositStatus();
  }

  function stageForDepositStatus(): DepositStage {
    switch (deposit!.status) {
      case 'CONFIRMED':
        return 'CONFIRMED';
      case 'REJECTED':
        if (refunded()) throw reversal();
        throw new DepositEnded({ stage: 'REJECTED', reason: 'the service rejected or refunded the deposit' });
      case 'ACTION_REQUIRED':
        return 'ACTION_REQUIRED';
      default:
        return verifiesPayloads && trade ? 'CONFIRMED' : 'RECEIVED';
    }
  }

  // ---- refunds: the service gives the money back after it had confirmed the deposit ---------------

  /** The service refunded the deposit after confirming it (its own record says so). */
  const refunded = (): boolean => verifiesPayloads && confirmedOnce && deposit?.status === 'REJECTED';

  function reversal(): DepositEnded {
    const after = trade?.status === 'SETTLED' ? 'its trade settled' : trade ? 'its trade was created' : 'it was confirmed';
    countReversal(state.kind, state.currency, reportedStage === 'COMPLETED' ? 'completed' : 'in-flight');
    return new DepositEnded({ stage: 'REVERSED', reason: `the service refunded the deposit after ${after}: its record shows REJECTED` });
  }

  /**
   * A wait after confirmation also ends on a refund; its polls read the deposit as well as what they
   * wait for, since a refunded deposit's trade or payout never settles (DEPOSIT_REFUND).
   */
  async function waitUnlessRefunded(what: string, settled: () => boolean, pollOnce: () => Promise<void>): Promise<void> {
    await waitOrPark(what, () => settled() || refunded(), async () => {
      if (verifiesPayloads) await pollDeposit();
      if (!refunded()) await pollOnce();
    });
    if (refunded()) throw reversal();
  }

  async function confirmed(): Promise<DepositStage> {
    await show('CONFIRMED', 'the service to create the trade (TRADE_CREATED)');
    await waitUnlessRefunded('the trade to be created', () => trade !== undefined, async () => {
      const found = await act.findTradeForDeposit.executeWithOptions(listSearchOptions('look for the deposit\'s trade'), [
        { depositId, customerId: deposit!.customerId },
      ]);
      if (found) applyTrade(found);
    });
    return 'TRADE_CREATED';
  }

  async function tradeCreated(): Promise<DepositStage> {
    await show('TRADE_CREATED', `the service to settle trade ${trade!.id} (TRADE_SETTLED)`);
    await waitUnlessRefunded('the trade to settle', () => trade!.status !== 'CREATED' && trade!.status !== 'PENDING', async () => {
      applyTrade(await act.getTrade.executeWithOptions(readOptions('poll the trade'), [trade!.id]));
    });
    if (trade!.status !== 'SETTLED') throw new ParkRequest(`trade ${trade!.id} ended ${trade!.status}`, 'TradeNotSettled');
    return 'TRADE_SETTLED';
  }

  async function tradeSettled(): Promise<DepositStage> {
    // An onramp ends when its trade settles: the crypto goes to the customer's exit address.
    if (state.kind === 'ONRAMP') {
      // A read that must get through: a service failing for a while is waited out, not parked on
      // (only a record the service does not have parks the deposit).
      if (tradeFromPayload && patched(COMPLETES_ON_SERVICE_WORD)) {
        // The service's record replaces the payload's, even where it is behind it.
        trade = await orPark('reading the settled trade from the service', () => act.getTrade.executeWithOptions(patientReadOptions('confirm the trade with the service'), [trade!.id, { confirming: true }]));
        tradeFromPayload = false;
        if (trade.status !== 'SETTLED') return 'TRADE_CREATED';
      }
      return 'COMPLETED';
    }
    await show('TRADE_SETTLED', 'the service to pay out to the customer\'s bank account (PAYMENT_SETTLED)');
    await waitUnlessRefunded('the payout', () => payment !== undefined && isPaymentSettled(payment.status), async () => {
      // No list of payments exists: the poll needs the payment's id, from an event or the trade.
      if (!state.paymentId) applyTrade(await act.getTrade.executeWithOptions(readOptions('look for the trade\'s payment'), [trade!.id]));
      if (state.paymentId) applyPayment(await act.getPayment.executeWithOptions(readOptions('poll the payment'), [state.paymentId]));
    });
    return 'PAYMENT_SETTLED';
  }

  async function paymentSettled(): Promise<DepositStage> {
    if (paymentFromPayload && patched(COMPLETES_ON_SERVICE_WORD)) {
      // A payment the service does not have (a forged id) fails this read, and the deposit parks.
      payment = await orPark('reading the payout from the service', () => act.getPayment.executeWithOptions(patientReadOptions('confirm the payout with the service'), [payment!.id, { confirming: true }]));
      paymentFromPayload = false;
      if (!isPaymentSettled(payment.status)) return 'TRADE_SETTLED';
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

  // Every deposit starts at RECEIVED, which moves on at once when the record is already further along.
  // Under the trust rule the deposit finds its journey from its own record, whoever started it.
  if (input.externalId !== undefined && !verifiesPayloads) learnJourney(input.externalId);
  let stage: DepositStage = 'RECEIVED';
  try {
    if (input.reversalOf === 'COMPLETED') await reverseCompleted();
    while (stage !== 'COMPLETED') {
      try {
        const next = await stages[stage]!();
        if (next !== stage) stageDeadlineAt = undefined;
        stage = next;
      } catch (error) {
        if (!(error instanceof ParkRequest)) throw error;
        const parked = stage;
        const decision = await desk.park(parked, error, () => void show('NEEDS_ATTENTION', `an operator: ${error.reason}`));
        if (decision.kind === 'cancel') throw new DepositEnded({ stage: 'CANCELLED', reason: decision.reason });
        // An operator's retry of a deposit no journey takes tracks it anyway (reports are then best effort).
        if (error.errorType === 'CustomerNotServed') served = true;
        lookBeforeWaiting = decision.kind === 'retry';
        stageDeadlineAt = undefined;
      }
    }
    throw new DepositEnded({ stage: 'COMPLETED', reason: completion() });
  } catch (error) {
    if (!(error instanceof DepositEnded)) throw error;
    state.outcome = error.outcome.reason;
    await show(error.outcome.stage, `nothing: ${error.outcome.reason}`);
    await condition(allHandlersFinished);
    return error.outcome;
  }

  function completion(): string {
    const traded = trade ? `traded ${trade.fromAmount} ${trade.fromCurrency} for ${trade.toAmount} ${trade.toCurrency}` : 'traded';
    return state.kind === 'OFFRAMP' && payment ? `${traded}; paid out as payment ${payment.id}` : traded;
  }
}

