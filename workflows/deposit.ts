/**
 * One deposit, `deposit/<depositId>`, a child of the customer's journey:
 * RECEIVED → CONFIRMED (or REJECTED; ACTION_REQUIRED waits for an operator's attachment)
 * → TRADE_CREATED → TRADE_SETTLED → (offramp) PAYMENT_SETTLED → COMPLETED.
 *
 * Each wait has the event path, a poll and a deadline; a deadline or a failure a retry cannot fix
 * parks the deposit in NEEDS_ATTENTION. Every change of stage is reported to the journey.
 */
import {
  allHandlersFinished,
  condition,
  getExternalWorkflowHandle,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { RampActivities } from '../activities';
import { changeOptions, readOptions } from './activity-options';
import { isAttachmentReference } from './attachment-reference';
import { workflowNow } from './clock';
import type { JourneyTimings } from './journey-input';
import {
  depositEventSignal,
  depositProgressSignal,
  depositStateQuery,
  paymentEventSignal,
  submitAttachmentUpdate,
  tradeEventSignal,
  type DepositStage,
  type DepositState,
  type DepositSummary,
} from './messages';
import { OperatorDesk } from './operator';
import { isPaymentSettled, type DepositRecord, type PaymentRecord, type TradeRecord } from './records';
import { RampStage } from './search-attributes';
import { ParkRequest } from './service-failures';
import { advancesDeposit, advancesTrade } from './status-order';
import { waitForService } from './waiting';

export interface DepositLifecycleInput {
  deposit: DepositRecord;
  kind: 'ONRAMP' | 'OFFRAMP';
  /** The journey to report progress to. */
  journeyWorkflowId: string;
  externalId: string;
  timings: JourneyTimings;
}

export interface DepositOutcome {
  stage: 'COMPLETED' | 'REJECTED' | 'CANCELLED';
  reason: string;
}

const act = proxyActivities<RampActivities>(changeOptions('a call to the ramp service'));

class DepositEnded extends Error {
  constructor(readonly outcome: DepositOutcome) {
    super(outcome.reason);
  }
}

export async function depositLifecycle(input: DepositLifecycleInput): Promise<DepositOutcome> {
  const { timings } = input;
  let deposit = input.deposit;
  let trade: TradeRecord | undefined;
  let payment: PaymentRecord | undefined;
  let attachmentSubmitted = false;
  const applied = new Set<string>();
  const desk = new OperatorDesk();
  const state: DepositState = {
    depositId: deposit.id,
    customerId: deposit.customerId,
    kind: input.kind,
    stage: 'RECEIVED',
    status: deposit.status,
    amount: deposit.amount,
    currency: deposit.currency,
    waitingFor: 'the service to confirm the deposit (DEPOSIT_APPROVED)',
  };

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
    const changed = stage !== state.stage || desk.attention !== state.attention;
    state.stage = stage;
    state.waitingFor = waitingFor;
    state.attention = desk.attention;
    upsertSearchAttributes([{ key: RampStage, value: stage }]);
    setCurrentDetails(`**${stage}**: ${waitingFor}`);
    if (!changed) return;
    try {
      await getExternalWorkflowHandle(input.journeyWorkflowId).signal(depositProgressSignal, summary());
    } catch {
      // The journey has ended (the customer was closed); the deposit still finishes on its own.
    }
  }

  // ---- events, applied at most once and only forward ---------------------------------------------

  function applyOnce(key: string, apply: () => void): void {
    if (applied.has(key)) return;
    applied.add(key);
    apply();
  }

  function applyDeposit(record: DepositRecord): void {
    if (record.id !== deposit.id || !advancesDeposit(deposit.status, record.status)) return;
    deposit = record;
    state.status = record.status;
  }

  function applyTrade(record: TradeRecord): void {
    if (record.depositId !== undefined && record.depositId !== deposit.id) return;
    if (trade && (trade.id !== record.id || !advancesTrade(trade.status, record.status))) return;
    trade = record;
    state.tradeId = record.id;
    if (record.paymentId) state.paymentId = record.paymentId;
  }

  function applyPayment(record: PaymentRecord): void {
    if (state.paymentId && record.id !== state.paymentId) return;
    payment = record;
    state.paymentId = record.id;
  }

  setHandler(depositEventSignal, (event) => applyOnce(event.key, () => applyDeposit(event.record)));
  setHandler(tradeEventSignal, (event) => applyOnce(event.key, () => applyTrade(event.record)));
  setHandler(paymentEventSignal, (event) => applyOnce(event.key, () => applyPayment(event.record)));
  setHandler(depositStateQuery, () => ({ ...state, attention: desk.attention }));
  setHandler(
    submitAttachmentUpdate,
    async (attachment) => {
      await act.submitDepositAttachment.executeWithOptions(changeOptions('submit the attachment the service asked for'), [
        { depositId: deposit.id, attachment },
      ]);
      attachmentSubmitted = true;
      return { submitted: true as const };
    },
    {
      validator: (attachment) => {
        if (deposit.status !== 'ACTION_REQUIRED') throw new Error(`the deposit is ${deposit.status}, not ACTION_REQUIRED: the service asked for no attachment`);
        // Only a reference to the stored bytes enters the history (attachments/, the claim check).
        if (!isAttachmentReference(attachment)) throw new Error('expected an attachment reference {reference, sha256, fileName, contentType, size}: store the file first (the client library does)');
      },
    },
  );

  // ---- the stages ------------------------------------------------------------------------------

  let stageDeadlineAt: number | undefined;

  async function waitOrPark(what: string, settled: () => boolean, pollOnce: () => Promise<void>): Promise<void> {
    stageDeadlineAt ??= workflowNow() + timings.depositStepDeadlineSeconds * 1000;
    const outcome = await waitForService({
      what,
      settled,
      poll: pollOnce,
      pollIntervalMs: timings.pollIntervalSeconds * 1000,
      deadlineAt: stageDeadlineAt,
      now: workflowNow,
    });
    if (outcome === 'deadline') throw new ParkRequest(`no answer from the service within the deadline while waiting for ${what}`, 'Deadline');
  }

  const pollDeposit = async () => applyDeposit(await act.getDeposit.executeWithOptions(readOptions('poll the deposit'), [deposit.id]));

  async function received(): Promise<DepositStage> {
    await show('RECEIVED', 'the service to confirm the deposit (DEPOSIT_APPROVED)');
    await waitOrPark('the deposit\'s confirmation', () => deposit.status !== 'RECEIVED', pollDeposit);
    return stageForDepositStatus();
  }

  async function actionRequired(): Promise<DepositStage> {
    await show('ACTION_REQUIRED', 'an operator to submit the attachment the service asked for (update submitAttachment)');
    // An operator's attachment (or the service deciding on its own) moves the deposit on.
    await waitOrPark('an attachment from an operator', () => attachmentSubmitted || deposit.status !== 'ACTION_REQUIRED', pollDeposit);
    if (deposit.status === 'ACTION_REQUIRED') {
      await show('ACTION_REQUIRED', 'the service to review the attachment (DEPOSIT_APPROVED)');
      stageDeadlineAt = undefined;
      await waitOrPark('the service\'s review of the attachment', () => deposit.status !== 'ACTION_REQUIRED', pollDeposit);
    }
    return stageForDepositStatus();
  }

  function stageForDepositStatus(): DepositStage {
    switch (deposit.status) {
      case 'CONFIRMED':
        return 'CONFIRMED';
      case 'REJECTED':
        throw new DepositEnded({ stage: 'REJECTED', reason: 'the service rejected or refunded the deposit' });
      case 'ACTION_REQUIRED':
        return 'ACTION_REQUIRED';
      default:
        return 'RECEIVED';
    }
  }

  async function confirmed(): Promise<DepositStage> {
    await show('CONFIRMED', 'the service to create the trade (TRADE_CREATED)');
    await waitOrPark('the trade to be created', () => trade !== undefined, async () => {
      const found = await act.findTradeForDeposit.executeWithOptions(readOptions('look for the deposit\'s trade'), [
        { depositId: deposit.id, customerId: deposit.customerId },
      ]);
      if (found) applyTrade(found);
    });
    return 'TRADE_CREATED';
  }

  async function tradeCreated(): Promise<DepositStage> {
    await show('TRADE_CREATED', `the service to settle trade ${trade!.id} (TRADE_SETTLED)`);
    await waitOrPark('the trade to settle', () => trade!.status !== 'CREATED' && trade!.status !== 'PENDING', async () => {
      applyTrade(await act.getTrade.executeWithOptions(readOptions('poll the trade'), [trade!.id]));
    });
    if (trade!.status !== 'SETTLED') throw new ParkRequest(`trade ${trade!.id} ended ${trade!.status}`, 'TradeNotSettled');
    return 'TRADE_SETTLED';
  }

  async function tradeSettled(): Promise<DepositStage> {
    // An onramp ends when its trade settles: the crypto goes to the customer's exit address.
    if (input.kind === 'ONRAMP') return 'COMPLETED';
    await show('TRADE_SETTLED', 'the service to pay out to the customer\'s bank account (PAYMENT_SETTLED)');
    await waitOrPark('the payout', () => payment !== undefined && isPaymentSettled(payment.status), async () => {
      // No list of payments exists: the poll needs the payment's id, from an event or the trade.
      if (!state.paymentId) applyTrade(await act.getTrade.executeWithOptions(readOptions('look for the trade\'s payment'), [trade!.id]));
      if (state.paymentId) applyPayment(await act.getPayment.executeWithOptions(readOptions('poll the payment'), [state.paymentId]));
    });
    return 'PAYMENT_SETTLED';
  }

  const stages: Partial<Record<DepositStage, () => Promise<DepositStage>>> = {
    RECEIVED: received,
    ACTION_REQUIRED: actionRequired,
    CONFIRMED: confirmed,
    TRADE_CREATED: tradeCreated,
    TRADE_SETTLED: tradeSettled,
    PAYMENT_SETTLED: async () => 'COMPLETED',
  };

  // Every deposit starts at RECEIVED, which moves on at once when the record is already further along.
  let stage: DepositStage = 'RECEIVED';
  try {
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
    return input.kind === 'OFFRAMP' && payment ? `${traded}; paid out as payment ${payment.id}` : traded;
  }
}
