/**
 * The steps of a deposit (workflows/deposit/workflow.ts), one per stage: each shows where the deposit is,
 * waits for the service to move it on (workflows/deposit/waits.ts) and returns the stage to run next;
 * it ends the deposit by throwing `DepositEnded` (workflows/deposit/ending.ts) and parks it by throwing
 * a `ParkRequest`. A run that reports the refund of a completed deposit has a step of its own,
 * `reverseCompleted`.
 */
import { sleep } from '@temporalio/workflow';
import { listSearchOptions, patientReadOptions, readOptions } from '../common/activity-options';
import { depositActivities as act } from './service-calls';
import type { DepositCourse } from './course';
import { journeyOfCustomer } from './owner';
import { DepositEnded, dismissed, notServed, reversal } from './ending';
import { describeInLists, show } from './showing';
import { waitOrPark, waitUnlessRefunded } from './waits';
import type { DepositStage } from '../common/messages';
import { isPaymentFailed, isPaymentSettled, type DepositRecord, type PaymentRecord } from '../common/records';
import { isAbsent, orPark, ParkRequest, parkRequestFor } from '../common/service-failures';
import {
  COMPLETES_ON_SERVICE_WORD,
  FAILED_PAYOUTS_PARK,
  REVERSALS_READ_FROM_TRADES,
  takesPatch,
} from '../common/patches';

/** A step: runs its stage and returns the stage to run next. */
export type DepositStep = (course: DepositCourse) => Promise<DepositStage>;

/**
 * Reads what the starter did not know (the record, whose customer it is), then finds the journey to
 * report to. Money for a customer rampflow does not serve parks here: an operator decides.
 */
export async function received(course: DepositCourse): Promise<DepositStage> {
  const { depositId, verifiesPayloads, ledger, link } = course;
  if (verifiesPayloads && !ledger.ownRecordRead) {
    const record = await readOwnRecord(course);
    if (record === undefined)
      throw dismissed(`the service has no deposit ${depositId}: a delivery named a deposit that does not exist`);
    ledger.takeOwnRecord(record);
    describeInLists(record);
  } else if (!ledger.deposit) {
    const record = await orPark('reading the deposit', () =>
      act.getDeposit.executeWithOptions(patientReadOptions('read the deposit'), [depositId]),
    );
    ledger.applyDeposit(record);
  }
  if (link.externalId === undefined && verifiesPayloads) {
    // The owner comes from the service's record of the deposit and rampflow's own index (or the
    // service's record of the customer), never from what a starter or a payload said.
    const owner = await journeyOfCustomer(ledger.deposit!.customerId);
    if (owner) link.learnJourney(owner);
  } else if (link.externalId === undefined) {
    const owner = await orPark("finding the deposit's customer", () =>
      act.findCustomerExternalId.executeWithOptions(patientReadOptions("find the customer's externalId"), [
        ledger.deposit!.customerId,
      ]),
    );
    if (owner) link.learnJourney(owner);
  }
  // Before the journey hears of this run: a deposit read REJECTED before it was seen confirmed may be a refund.
  if (
    verifiesPayloads &&
    !ledger.confirmedOnce &&
    ledger.deposit!.status === 'REJECTED' &&
    takesPatch(REVERSALS_READ_FROM_TRADES)
  ) {
    await reverseIfTraded(course);
  }
  await show(course, 'RECEIVED', 'the service to confirm the deposit (DEPOSIT_APPROVED)');
  link.noteServedIfReported();
  if (!link.served) throw notServed(link, course.state.customerId);
  // A trade the service links to this deposit says it was confirmed, whatever the deposit's last read said.
  // CONFIRMED and REJECTED come with an event, ACTION_REQUIRED with none: the wait polls early for it.
  await waitOrPark(
    course,
    "the deposit's confirmation",
    () => ledger.deposit!.status !== 'RECEIVED' || (verifiesPayloads && ledger.trade !== undefined),
    course.pollDeposit,
    { unannounced: true },
  );
  return stageForDepositStatus(course);
}

export async function actionRequired(course: DepositCourse): Promise<DepositStage> {
  const { ledger } = course;
  await show(
    course,
    'ACTION_REQUIRED',
    'an operator to submit the attachment the service asked for (update submitAttachment)',
  );
  // An operator's attachment (or the service deciding on its own) moves the deposit on.
  await waitOrPark(
    course,
    'an attachment from an operator',
    () => ledger.attachmentSubmitted || ledger.deposit!.status !== 'ACTION_REQUIRED',
    course.pollDeposit,
  );
  if (ledger.deposit!.status === 'ACTION_REQUIRED') {
    await show(course, 'ACTION_REQUIRED', 'the service to review the attachment (DEPOSIT_APPROVED)');
    course.clock.restart();
    await waitOrPark(
      course,
      "the service's review of the attachment",
      () => ledger.deposit!.status !== 'ACTION_REQUIRED',
      course.pollDeposit,
    );
  }
  return stageForDepositStatus(course);
}

export async function confirmed(course: DepositCourse): Promise<DepositStage> {
  const { ledger } = course;
  await show(course, 'CONFIRMED', 'the service to create the trade (TRADE_CREATED)');
  await waitUnlessRefunded(
    course,
    'the trade to be created',
    () => ledger.trade !== undefined,
    async () => {
      const found = await act.findTradeForDeposit.executeWithOptions(
        listSearchOptions("look for the deposit's trade"),
        [{ depositId: course.depositId, customerId: ledger.deposit!.customerId }],
      );
      if (found) ledger.applyTrade(found);
    },
  );
  return 'TRADE_CREATED';
}

export async function tradeCreated(course: DepositCourse): Promise<DepositStage> {
  const { ledger } = course;
  await show(course, 'TRADE_CREATED', `the service to settle trade ${ledger.trade!.id} (TRADE_SETTLED)`);
  await waitUnlessRefunded(
    course,
    'the trade to settle',
    () => ledger.trade!.status !== 'CREATED' && ledger.trade!.status !== 'PENDING',
    async () => {
      ledger.applyTrade(await act.getTrade.executeWithOptions(readOptions('poll the trade'), [ledger.trade!.id]));
    },
  );
  if (ledger.trade!.status !== 'SETTLED')
    throw new ParkRequest(`trade ${ledger.trade!.id} ended ${ledger.trade!.status}`, 'TradeNotSettled');
  return 'TRADE_SETTLED';
}

export async function tradeSettled(course: DepositCourse): Promise<DepositStage> {
  const { ledger, state } = course;
  // An onramp ends when its trade settles: the crypto goes to the customer's exit address.
  if (state.kind === 'ONRAMP') {
    // A read that must get through: a service failing for a while is waited out, not parked on
    // (only a record the service does not have parks the deposit).
    if (ledger.tradeFromPayload && takesPatch(COMPLETES_ON_SERVICE_WORD)) {
      // The service's record replaces the payload's, even where it is behind it.
      const settled = await orPark('reading the settled trade from the service', () =>
        act.getTrade.executeWithOptions(patientReadOptions('confirm the trade with the service'), [
          ledger.trade!.id,
          { confirming: true },
        ]),
      );
      ledger.takeServiceTrade(settled);
      if (settled.status !== 'SETTLED') return 'TRADE_CREATED';
    }
    return 'COMPLETED';
  }
  await show(course, 'TRADE_SETTLED', "the service to pay out to the customer's bank account (PAYMENT_SETTLED)");
  // The service announces no failed payment: only a poll finds one.
  let failedPayment: PaymentRecord | undefined;
  await waitUnlessRefunded(
    course,
    'the payout',
    () => failedPayment !== undefined || (ledger.payment !== undefined && isPaymentSettled(ledger.payment.status)),
    async () => {
      // No list of payments exists: the poll needs the payment's id, from an event or the trade.
      if (!state.paymentId)
        ledger.applyTrade(
          await act.getTrade.executeWithOptions(readOptions("look for the trade's payment"), [ledger.trade!.id]),
        );
      if (state.paymentId) {
        const payment = await act.getPayment.executeWithOptions(readOptions('poll the payment'), [state.paymentId]);
        ledger.applyPayment(payment);
        if (ledger.payment === payment && isPaymentFailed(payment.status) && takesPatch(FAILED_PAYOUTS_PARK))
          failedPayment = payment;
      }
    },
  );
  if (failedPayment)
    throw new ParkRequest(`payment ${failedPayment.id} ended ${failedPayment.status}`, 'PaymentFailed');
  return 'PAYMENT_SETTLED';
}

export async function paymentSettled({ ledger }: DepositCourse): Promise<DepositStage> {
  if (ledger.paymentFromPayload && takesPatch(COMPLETES_ON_SERVICE_WORD)) {
    // A payment the service does not have (a forged id) fails this read, and the deposit parks.
    const paid = await orPark('reading the payout from the service', () =>
      act.getPayment.executeWithOptions(patientReadOptions('confirm the payout with the service'), [
        ledger.payment!.id,
        { confirming: true },
      ]),
    );
    ledger.takeServicePayment(paid);
    if (!isPaymentSettled(paid.status)) return 'TRADE_SETTLED';
  }
  return 'COMPLETED';
}

/**
 * A run started to report the refund of a deposit whose earlier run COMPLETED (client/deposit-delivery.ts
 * starts it on the service's REJECTED record): it reads the record itself, and tells the journey,
 * whose totals counted the deposit, that the money went back.
 */
export async function reverseCompleted(course: DepositCourse): Promise<void> {
  const { depositId, ledger, link } = course;
  const record = await readOwnRecord(course);
  if (record === undefined)
    throw dismissed(`the service has no deposit ${depositId}: a delivery named a deposit that does not exist`);
  ledger.takeOwnRecord(record);
  if (record.status !== 'REJECTED')
    throw new DepositEnded({
      stage: 'COMPLETED',
      reason: `nothing to reverse: the service shows the deposit ${record.status}`,
    });
  const owner = await journeyOfCustomer(record.customerId);
  if (owner) link.learnJourney(owner);
  link.reportedStage = 'COMPLETED'; // what the journey counted
  ledger.knowConfirmed();
  throw reversal(ledger, link);
}

/**
 * A deposit read REJECTED before the run saw it confirmed (at its first read, or when a step parked
 * here runs again): a rejection, or a refund of money the service had confirmed and moved, whose
 * earlier run (which knew it completed) retention removed, or whose events were all lost. The run's history cannot tell them apart; the service's records can: a trade that names the
 * deposit says the service confirmed it (the trade is verified by its detail read,
 * activities/trade-lookup.ts). Then the run ends REVERSED, and when the trade settled (and an
 * offramp's payment was paid out) the journey is told the deposit had COMPLETED, the stage its board
 * counted it at, so its completed totals drop the amount. No trade: a rejection, as before.
 */
async function reverseIfTraded(course: DepositCourse): Promise<void> {
  const { depositId, ledger, link } = course;
  const found = await orPark('looking for a trade of the rejected deposit', () =>
    act.findTradeForDeposit.executeWithOptions(listSearchOptions('look for a trade of the rejected deposit'), [
      { depositId, customerId: ledger.deposit!.customerId },
    ]),
  );
  if (!found) return;
  ledger.applyTrade(found);
  // applyTrade takes only a trade whose record names this deposit; it then knows the deposit was confirmed.
  if (!ledger.confirmedOnce) return;
  // What the journey counted: what this run told it (a park while searching), else what the earlier run did.
  if (link.reportedStage === undefined && (await completedAtTheService(course))) link.reportedStage = 'COMPLETED';
  throw reversal(ledger, link);
}

/** Whether the service's records show the deposit's money all the way through: its trade settled and, for an offramp, its payout. */
async function completedAtTheService({ ledger, state }: DepositCourse): Promise<boolean> {
  const trade = ledger.trade!;
  if (trade.status !== 'SETTLED') return false;
  if (state.kind === 'ONRAMP') return true;
  if (!trade.paymentId) return false;
  const payment = await orPark("reading the refunded deposit's payout", () =>
    act.getPayment.executeWithOptions(patientReadOptions('read the payout of the refunded deposit'), [
      trade.paymentId!,
    ]),
  );
  ledger.applyPayment(payment);
  return isPaymentSettled(payment.status);
}

/**
 * The deposit's own record, read once before it shows or reports anything. A deposit the service does
 * not have (a forged delivery, a made-up id) is looked for once more after a grace period, for a
 * service that lists a record a moment before it serves it, and then is absent (undefined).
 */
async function readOwnRecord({ depositId, timings }: DepositCourse): Promise<DepositRecord | undefined> {
  for (let look = 1; ; look++) {
    try {
      return await act.getDeposit.executeWithOptions(patientReadOptions('read the deposit from the service'), [
        depositId,
        { confirming: true },
      ]);
    } catch (error) {
      if (!isAbsent(error)) throw parkRequestFor(error, 'reading the deposit');
      if (look >= 2) return undefined;
      await sleep(timings.notFoundGraceSeconds * 1000, {
        summary: 'look again for a deposit the service does not have',
      });
    }
  }
}

function stageForDepositStatus({ ledger, link, verifiesPayloads }: DepositCourse): DepositStage {
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
