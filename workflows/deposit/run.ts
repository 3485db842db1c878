/**
 * One run of a deposit (workflows/deposit/workflow.ts): what it works with (its timings, its ledger of
 * the service's records, the journey it reports to, its step's
 * deadline, its operator desk, the hints deliveries left for it) and what it does with them, as methods:
 *
 * - its handlers (deliveries, the state query, `submitAttachment`), applied at most once and only forward;
 * - its steps, one per stage, each named for what it awaits: it enters its stage, waits for the service
 *   to move the deposit on and returns the stage to run next; it ends the deposit by throwing
 *   `DepositEnded` and parks it by throwing a `ParkRequest`;
 * - its waits: the event path (and the hints deliveries left), a poll and the step's deadline, at which
 *   it parks; after confirmation a wait also ends on a refund. A wait whose run's history has grown
 *   ends the run to continue as new (workflows/deposit/carry.ts);
 * - `enterStage`, the one place a stage is entered: set, indexed (where the deposit waits:
 *   `indexWhen`), counted and told to the journey;
 * - parking: a step that parked waits for an operator, who cancels or resumes it. A parked deposit
 *   whose history grows continues as new parked: the next run takes the
 *   parking up (`carriedParking`). A park with no late fact (a failure, money for a customer not
 *   served) is taken up at once; a deadline's park is rebuilt by running its step again with nothing
 *   shown, its passed wait parking at once, so the park looks at the same fact as before;
 * - how it ends, and how it continues as new.
 *
 * What it holds that is plain data (the ledger, the journey link, the hint boxes) is in
 * workflows/deposit/ledger.ts; what it carries to its next run in workflows/deposit/carry.ts.
 */
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import type { CustomerJourneyLookupActivities, RampActivities } from '../../activities';
import type { JourneyReportActivities } from '../../activities/journey-reports';
import type { NamespaceActivities } from '../../activities/namespace-retention';
import { RampCustomerId, RampExternalId, RampStage } from '../../observability/search-attributes';
import {
  ACTIVITY_RETRY,
  changeOptions,
  isAbsent,
  listSearchOptions,
  orPark,
  ParkRequest,
  parkRequestFor,
  patientReadOptions,
  readOptions,
  serviceActivities,
} from '../common/calls';
import {
  AppliedKeys,
  depositKindOf as kindOf,
  type DepositRecord,
  isPaymentFailed,
  isPaymentSettled,
  type PaymentRecord,
  type TradeRecord,
} from '../common/records';
import { isAttachmentReference } from '../common/checks';
import { depositTimings, type DepositTimings, workflowNow } from '../common/timings';
import type { DepositLifecycleInput, DepositLifecycleRequest } from '../schemas';
import {
  depositEventSignal,
  type DepositProgress,
  depositReportKey,
  type DepositStage,
  type DepositState,
  depositStateQuery,
  type DepositSummary,
  paymentEventSignal,
  submitAttachmentUpdate,
  tradeEventSignal,
} from '../common/messages';
import {
  countDismissed,
  countIgnoredHint,
  countReversal,
  type IndexEntry,
  stageEntered,
  StageIndexWhereWaiting,
} from '../common/showing';
import {
  DEPOSIT_FIRST_LOOK,
  FIRST_READ_REFUND_TELLS_COMPLETION,
  REFUND_READS_WHAT_SETTLED,
  takesPatch,
} from '../common/patches';
import { type CarriedParking, OperatorDesk, takeUpCarriedPark } from '../common/parking';
import { isHint, paymentNamesTrade, tradeNamesDeposit } from '../common/trust';
import { deadlinePassed, DepositStepClock, pollTolerantly, waitForService } from '../common/waiting';
import { isNewsForJourney } from '../common/messages';
import {
  type CarriedDeposit,
  type CarriedReports,
  carry,
  DEPOSIT_MAX_HISTORY_EVENTS,
  nextRunInput,
  takeUpCarried,
} from './carry';
import { DepositHints, DepositJourneyLink, DepositLedger } from './ledger';

/**
 * The calls a deposit makes to the ramp service and to rampflow's own index: on the service task queue
 * at the workflow's own priority (workflows/common/calls.ts).
 */
const act = serviceActivities<RampActivities & CustomerJourneyLookupActivities>(
  changeOptions('a call to the ramp service'),
);

/**
 * rampflow's index of journeys, asked by a local activity (a visibility query from the worker that
 * runs the deposit) when the first read's own look-up did not answer, or before the deposit's first
 * look (DEPOSIT_FIRST_LOOK).
 */
const journeyIndex = proxyLocalActivities<CustomerJourneyLookupActivities>({
  startToCloseTimeout: '10 seconds',
  retry: ACTIVITY_RETRY,
  summary: "find the customer's journey in rampflow's index",
});

/**
 * The namespace's retention, read from the Temporal server (activities/namespace-retention.ts): no call
 * to the service. About 10 minutes of attempts, then the step parks for an operator (a worker whose key
 * may not describe the namespace is a deployment to fix, docs/deploying/temporal-cluster-or-cloud.md).
 */
const namespace = proxyActivities<NamespaceActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '2 minutes', maximumAttempts: 10 },
  summary: "read the namespace's retention",
});

/**
 * A report to the journey is offered until the journey takes it or is gone, however long a storm keeps
 * it waiting: a report is never dropped. The backoff is capped low, so a report refused during a
 * journey's hand-over to its next run goes to that run within seconds.
 */
const journeyReports = proxyActivities<JourneyReportActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds' },
  summary: 'report progress to the journey',
});

export interface DepositOutcome {
  stage: 'COMPLETED' | 'REJECTED' | 'CANCELLED' | 'DISMISSED' | 'REVERSED';
  reason: string;
}

/** Thrown by a step to end the deposit; the run shows the end and returns its outcome (`DepositRun.end`). */
export class DepositEnded extends Error {
  constructor(readonly outcome: DepositOutcome) {
    super(outcome.reason);
  }
}

/** Thrown by a wait when the run should continue as new (workflows/deposit/carry.ts). */
export class DepositHistoryFull extends Error {}

/** Why an attachment is refused: the service asked for none (as far as the deposit's last read of it says). */
const notAskedFor = (status: string | undefined): string =>
  `the deposit is ${status ?? 'not read yet'}, not ACTION_REQUIRED: the service asked for no attachment`;

/** Why the deposit refuses an operator's attachment (`submitAttachment`), one constructor per reason; see Refused. */
const AttachmentRefused = {
  notAskedFor: (status: string | undefined) => new Error(notAskedFor(status)),
  notAReference: () =>
    new Error(
      'expected an attachment reference {reference, sha256, fileName, contentType, size}: store the file first (the client library does)',
    ),
  anotherAlreadySubmitted: () =>
    new Error(
      'an attachment was already submitted for this deposit: the service reviews that one; a second, different file is refused',
    ),
  /** From the handler, so recorded as the update's outcome (typed): after the read, or, before the patch, without one. */
  notAskedForOutcome: (status: string | undefined, readJustNow: boolean) =>
    ApplicationFailure.nonRetryable(
      readJustNow ? `${notAskedFor(status)} (read from the service just now)` : notAskedFor(status),
      'AttachmentNotAskedFor',
    ),
  unread: (before: string | undefined, error: ActivityFailure) =>
    ApplicationFailure.nonRetryable(
      `the deposit is ${before ?? 'not read yet'} as last read, and reading it again from the service failed (${error.cause?.message ?? error.message}): try again`,
      'DepositUnread',
    ),
};

export class DepositRun {
  readonly depositId: string;
  /** Resolved where each is used, from the starter's overrides and the code's defaults (workflows/common/timings.ts). */
  readonly timings: Readonly<DepositTimings>;
  /** What the deposit holds of the service's records (workflows/deposit/ledger.ts). */
  readonly ledger: DepositLedger;
  readonly state: DepositState;
  /** The journey it reports to. */
  readonly link: DepositJourneyLink;
  /** Its current step's deadline. */
  readonly clock: DepositStepClock;
  /** The event keys applied, so that each event is applied at most once. */
  readonly applied: AppliedKeys;
  /** Installs the operator's `retry` and `cancel` updates. */
  readonly desk: OperatorDesk;
  readonly reporter: JourneyReporter;
  /** Deliveries' claims about this deposit, its trade and its payment, waiting for a look. */
  readonly hints: DepositHints;
  /**
   * The parking the previous run handed on, until this run's park takes it up (or its step finds
   * the fact came true meanwhile): while set, the step runs again only to rebuild its park.
   */
  carriedParking: CarriedParking | undefined;
  private readonly input: DepositLifecycleInput;
  /** What rampflow's index answered, in the first read of the record, for the customer it names (`journeyOfCustomer`). */
  private indexedAtFirstLook: { customerId: string; journey: string | null } | undefined;
  /** Set once this run looked for the trade of its deposit read REJECTED (a refund may hide behind the status). */
  private rejectedTradeSought = false;
  /** Its stage reaches the index where it waits (`indexWhen`). */
  private readonly index = new StageIndexWhereWaiting();

  /**
   * Made in this order, before the deposit's handlers are set (`registerHandlers`); a run that
   * continues another takes up what it carried (workflows/deposit/carry.ts).
   */
  constructor(input: DepositLifecycleInput, carried?: CarriedDeposit) {
    const { depositId } = input;
    this.input = input;
    this.depositId = depositId;
    this.timings = depositTimings(input.timings);
    const ledger = new DepositLedger(depositId, input.deposit);
    this.ledger = ledger;
    this.state = ledger.state;
    this.link = new DepositJourneyLink();
    if (carried) takeUpCarried(carried, ledger, this.link);
    this.clock = new DepositStepClock(carried?.stepDeadlineAt);
    this.applied = new AppliedKeys(carried?.appliedEventKeys);
    this.carriedParking = carried?.parking;
    this.desk = new OperatorDesk(undefined, carried?.parking?.attention);
    this.reporter = new JourneyReporter(depositId, carried?.reports);
    this.hints = new DepositHints(depositId, ledger, carried?.hints);
  }

  // ---- handlers ------------------------------------------------------------------------------------

  /**
   * The deposit's deliveries, query and `submitAttachment` update (one attachment per deposit, the same
   * file again answered as the first): events are applied at most once and only forward; hints wait
   * for a look.
   */
  registerHandlers(): void {
    const { ledger, state, applied, hints, desk } = this;
    // Hints are not de-duplicated by key: each costs at most one read, and a forged delivery that came
    // first must not use up the key of the genuine one.
    setHandler(depositEventSignal, (event) => {
      if (isHint(event)) {
        hints.noteDeposit(event.record);
      } else applied.applyOnce(event.key, () => ledger.applyDeposit(event.record));
    });
    setHandler(tradeEventSignal, (event) =>
      isHint(event)
        ? hints.noteTrade(event.record)
        : applied.applyOnce(event.key, () => ledger.applyTrade(event.record)),
    );
    setHandler(paymentEventSignal, (event) =>
      isHint(event)
        ? hints.notePayment(event.record)
        : applied.applyOnce(event.key, () => ledger.applyPayment(event.record)),
    );
    setHandler(depositStateQuery, () => ({ ...state, attention: desk.attention }));
    // One attachment per deposit: the service asked for a document, and a second file would be a second
    // submission it has to review. The same file again (a client that lost the answer and retried) waits
    // for the first submission and gets its answer; a different file is refused by the validator.
    setHandler(
      submitAttachmentUpdate,
      async (attachment) => {
        // Accepted while RECEIVED (the validator's one exception): ACTION_REQUIRED comes with no event,
        // so the service is read before the attachment is refused.
        if (ledger.deposit?.status !== 'ACTION_REQUIRED') await this.readBeforeRefusing();
        if (ledger.attachmentSha256 !== undefined) {
          // Bounded by the first submission's own activity: it succeeds, or fails and frees the claim.
          await condition(() => ledger.attachmentSubmitted || ledger.attachmentSha256 === undefined);
          if (ledger.attachmentSubmitted) return { submitted: true as const };
        }
        ledger.attachmentSha256 = attachment.sha256;
        try {
          await act.submitDepositAttachment.executeWithOptions(
            changeOptions('submit the attachment the service asked for'),
            [{ depositId: this.depositId, attachment }],
          );
        } catch (error) {
          ledger.attachmentSha256 = undefined;
          throw error;
        }
        ledger.attachmentSubmitted = true;
        return { submitted: true as const };
      },
      {
        validator: (attachment) => {
          // Refused at once, before any history is written, where no read could change the answer: a
          // deposit past RECEIVED (state only moves forward) or not read yet. RECEIVED is read first.
          const status = ledger.deposit?.status;
          if (status !== 'ACTION_REQUIRED' && status !== 'RECEIVED') throw AttachmentRefused.notAskedFor(status);
          // Only a reference to the stored bytes enters the history (attachments/, the claim check).
          if (!isAttachmentReference(attachment)) throw AttachmentRefused.notAReference();
          if (ledger.attachmentSha256 !== undefined && ledger.attachmentSha256 !== attachment.sha256)
            throw AttachmentRefused.anotherAlreadySubmitted();
        },
      },
    );
  }

  /** One read of the deposit (the poll's), then the refusal if it is still not ACTION_REQUIRED. */
  private async readBeforeRefusing(): Promise<void> {
    const { ledger } = this;
    const before = ledger.deposit?.status;
    try {
      await this.pollDeposit();
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      throw AttachmentRefused.unread(before, error);
    }
    const status = ledger.deposit?.status;
    if (status !== 'ACTION_REQUIRED') throw AttachmentRefused.notAskedForOutcome(status, true);
  }

  // ---- the steps -----------------------------------------------------------------------------------

  /** Runs the step of `stage` and returns the stage to run next. */
  step(stage: DepositStage): Promise<DepositStage> {
    switch (stage) {
      case 'RECEIVED':
        return this.awaitConfirmation();
      case 'ACTION_REQUIRED':
        return this.awaitAttachment();
      case 'CONFIRMED':
        return this.awaitTrade();
      case 'TRADE_CREATED':
        return this.awaitTradeSettled();
      case 'TRADE_SETTLED':
        return this.awaitPayout();
      case 'PAYMENT_SETTLED':
        // The payout's settlement was read from the service (awaitPayout): nothing is left to confirm.
        return Promise.resolve('COMPLETED');
      default:
        throw new Error(`a deposit has no step at ${stage}`);
    }
  }

  /**
   * RECEIVED: reads what the starter did not know (the record, whose customer it is), finds the
   * journey to report to, then awaits the service's decision. Money for a customer rampflow does not
   * serve parks here: an operator decides.
   */
  async awaitConfirmation(): Promise<DepositStage> {
    const { depositId, ledger, link } = this;
    if (!ledger.ownRecordRead) {
      const record = await this.readOwnRecord({ report: true });
      if (record === undefined)
        throw this.dismissed(`the service has no deposit ${depositId}: a delivery named a deposit that does not exist`);
      ledger.takeOwnRecord(record);
      describeInLists(record);
    }
    if (link.externalId === undefined) {
      // The owner comes from the service's record of the deposit and rampflow's own index (or the
      // service's record of the customer), never from what a starter or a payload said.
      const owner = await this.journeyOfCustomer(ledger.deposit!.customerId);
      if (owner) link.learnJourney(owner);
    }
    // Before the journey hears of this run: a deposit read REJECTED before it was seen confirmed may be a refund.
    if (!ledger.confirmedOnce && ledger.deposit!.status === 'REJECTED') await this.reverseIfTraded();
    await this.enterStage('RECEIVED', 'the service to confirm the deposit (DEPOSIT_APPROVED)');
    link.noteServedIfReported();
    if (!link.served) throw this.notServed();
    // A trade the service links to this deposit says it was confirmed, whatever the deposit's last read said.
    // CONFIRMED and REJECTED come with an event, ACTION_REQUIRED with none: the wait polls early for it.
    await this.waitOrPark(
      "the deposit's confirmation",
      () => ledger.deposit!.status !== 'RECEIVED' || ledger.trade !== undefined,
      () => this.pollDeposit(),
      { unannounced: true },
    );
    return this.stageForDepositStatus();
  }

  /** ACTION_REQUIRED: awaits an operator's attachment, then the service's review of it. */
  async awaitAttachment(): Promise<DepositStage> {
    const { ledger } = this;
    await this.enterStage(
      'ACTION_REQUIRED',
      'an operator to submit the attachment the service asked for (update submitAttachment)',
    );
    // An operator's attachment (or the service deciding on its own) moves the deposit on.
    await this.waitOrPark(
      'an attachment from an operator',
      () => ledger.attachmentSubmitted || ledger.deposit!.status !== 'ACTION_REQUIRED',
      () => this.pollDeposit(),
    );
    if (ledger.deposit!.status === 'ACTION_REQUIRED') {
      await this.enterStage('ACTION_REQUIRED', 'the service to review the attachment (DEPOSIT_APPROVED)');
      this.clock.restart();
      await this.waitOrPark(
        "the service's review of the attachment",
        () => ledger.deposit!.status !== 'ACTION_REQUIRED',
        () => this.pollDeposit(),
      );
    }
    return this.stageForDepositStatus();
  }

  /** CONFIRMED: awaits the trade the service creates for the deposit. */
  async awaitTrade(): Promise<DepositStage> {
    const { ledger } = this;
    await this.enterStage('CONFIRMED', 'the service to create the trade (TRADE_CREATED)');
    const completedFirst = await this.waitUnlessRefunded(
      'the trade to be created',
      () => ledger.trade !== undefined,
      async () => {
        const found = await act.findTradeForDeposit.executeWithOptions(
          listSearchOptions("look for the deposit's trade"),
          [{ depositId: this.depositId, customerId: ledger.deposit!.customerId }],
        );
        if (found) ledger.applyTrade(found);
      },
    );
    return completedFirst ? 'COMPLETED' : 'TRADE_CREATED';
  }

  /** TRADE_CREATED: awaits the trade's settlement; a trade that ends otherwise parks. */
  async awaitTradeSettled(): Promise<DepositStage> {
    const { ledger } = this;
    await this.enterStage('TRADE_CREATED', `the service to settle trade ${ledger.trade!.id} (TRADE_SETTLED)`);
    const completedFirst = await this.waitUnlessRefunded(
      'the trade to settle',
      () => ledger.trade!.status !== 'CREATED' && ledger.trade!.status !== 'PENDING',
      async () => {
        ledger.applyTrade(await act.getTrade.executeWithOptions(readOptions('poll the trade'), [ledger.trade!.id]));
      },
    );
    if (completedFirst) return 'COMPLETED';
    if (ledger.trade!.status !== 'SETTLED')
      throw ParkRequest.decidedByService(`trade ${ledger.trade!.id} ended ${ledger.trade!.status}`, 'TradeNotSettled');
    return 'TRADE_SETTLED';
  }

  /**
   * TRADE_SETTLED: an onramp ends here (its settled trade confirmed with the service); an offramp
   * awaits its payout to the customer's bank account, and parks on a failed one.
   */
  async awaitPayout(): Promise<DepositStage> {
    const { ledger, state } = this;
    // An onramp ends when its trade settles: the crypto goes to the customer's exit address.
    if (state.kind === 'ONRAMP') return 'COMPLETED';
    await this.enterStage('TRADE_SETTLED', "the service to pay out to the customer's bank account (PAYMENT_SETTLED)");
    // The service announces no failed payment: only a poll finds one.
    let failedPayment: PaymentRecord | undefined;
    const completedFirst = await this.waitUnlessRefunded(
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
          if (ledger.payment === payment && isPaymentFailed(payment.status)) failedPayment = payment;
        }
      },
    );
    if (completedFirst) return 'COMPLETED';
    if (failedPayment)
      throw ParkRequest.decidedByService(`payment ${failedPayment.id} ended ${failedPayment.status}`, 'PaymentFailed');
    return 'PAYMENT_SETTLED';
  }

  /**
   * A run started to report the refund of a deposit whose earlier run COMPLETED (client/deposit-delivery.ts
   * starts it on the service's REJECTED record): it reads the record itself, and tells the journey,
   * whose totals counted the deposit, that the money went back.
   */
  async reverseCompleted(): Promise<void> {
    const { depositId, ledger, link } = this;
    const record = await this.readOwnRecord();
    if (record === undefined)
      throw this.dismissed(`the service has no deposit ${depositId}: a delivery named a deposit that does not exist`);
    ledger.takeOwnRecord(record);
    if (record.status !== 'REJECTED')
      throw new DepositEnded({
        stage: 'COMPLETED',
        reason: `nothing to reverse: the service shows the deposit ${record.status}`,
      });
    const owner = await this.journeyOfCustomer(record.customerId);
    if (owner) link.learnJourney(owner);
    link.reportedStage = 'COMPLETED'; // what the journey counted
    ledger.knowConfirmed();
    throw this.reversal();
  }

  /**
   * A deposit read REJECTED before the run saw it confirmed (at its first read, or when a step parked
   * here runs again): a rejection, or a refund of money the service had confirmed and moved, whose
   * earlier run (which knew it completed) retention removed, or whose events were all lost. The run's
   * history cannot tell them apart; the service's records can: a trade that names the deposit says the
   * service confirmed it (the trade is verified by its detail read, activities/trade-lookup.ts). Then
   * the run ends REVERSED. When the trade settled (and an offramp's payment was paid out), the deposit
   * had completed: if no earlier run can have told the journey so (noEarlierRunCouldHaveToldIt), the
   * run ends COMPLETED first and the journey hears both; otherwise it is told the deposit had
   * COMPLETED, the stage its board counted it at, so its completed totals drop the amount. No trade: a
   * rejection, as before.
   */
  private async reverseIfTraded(): Promise<void> {
    const { depositId, ledger, link } = this;
    const found = await orPark('looking for a trade of the rejected deposit', () =>
      act.findTradeForDeposit.executeWithOptions(listSearchOptions('look for a trade of the rejected deposit'), [
        { depositId, customerId: ledger.deposit!.customerId },
      ]),
    );
    this.rejectedTradeSought = true;
    if (!found) return;
    ledger.applyTrade(found);
    // applyTrade takes only a trade whose record names this deposit; it then knows the deposit was confirmed.
    if (!ledger.confirmedOnce) return;
    // What the journey counted: an open stage this run told it (its first look, or a park), else
    // COMPLETED, told by an earlier run, unless no earlier run can have: then it is told the completion
    // (end() then reverses it), which it would otherwise never hear of.
    const toldOpenStage = link.reportedStage !== undefined;
    if (toldOpenStage && !takesPatch(FIRST_READ_REFUND_TELLS_COMPLETION)) throw this.reversal();
    if (!(await this.completedAtTheService())) throw this.reversal();
    if (
      (toldOpenStage || takesPatch(FIRST_READ_REFUND_TELLS_COMPLETION)) &&
      (await this.noEarlierRunCouldHaveToldIt(found))
    )
      throw new DepositEnded({ stage: 'COMPLETED', reason: ledger.completion() });
    if (!toldOpenStage) link.reportedStage = 'COMPLETED';
    throw this.reversal();
  }

  /**
   * Whether no earlier run of this deposit can have told the journey it completed. Such a run ended
   * after the trade was created, and a closed run stays until the namespace's retention has passed
   * since its close; while it stays, a delivery of the refund starts a reversal run of its own
   * (client/deposit-delivery.ts), not this one. So a trade created less than the retention ago leaves
   * no room for one; an older trade (or one without a readable creation time) might, and the run
   * takes the journey to have counted it, as before. Its blind spot: an earlier run an operator
   * deleted by hand within the retention.
   */
  private async noEarlierRunCouldHaveToldIt(trade: TradeRecord): Promise<boolean> {
    if (trade.createdAt === undefined) return false;
    const retentionMs = await orPark("reading the namespace's retention", () => namespace.namespaceRetentionMs());
    return workflowNow() - trade.createdAt < retentionMs;
  }

  /** Whether the service's records show the deposit's money all the way through: its trade settled and, for an offramp, its payout. */
  private async completedAtTheService(): Promise<boolean> {
    const { ledger, state } = this;
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
  private async readOwnRecord(how: { report?: boolean } = {}): Promise<DepositRecord | undefined> {
    const { depositId, timings } = this;
    const firstLook = takesPatch(DEPOSIT_FIRST_LOOK);
    for (let look = 1; ; look++) {
      try {
        if (firstLook) return await this.firstLook(how.report === true);
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

  /**
   * The read of the record with rampflow's index asked for the customer it names, and, when `report`,
   * the first report to the journey it found (activities/ramp-activities.ts, `firstLookAtDeposit`): one
   * activity. A report the journey took is the one `enterStage('RECEIVED')` would have sent.
   */
  private async firstLook(report: boolean): Promise<DepositRecord> {
    const { deposit, indexedJourney, reportTaken } = await act.firstLookAtDeposit.executeWithOptions(
      patientReadOptions('read the deposit from the service'),
      [this.depositId, report ? this.reporter.firstKey() : undefined],
    );
    if (indexedJourney !== undefined)
      this.indexedAtFirstLook = { customerId: deposit.customerId, journey: indexedJourney };
    if (reportTaken) {
      this.reporter.firstTaken();
      this.link.reportedStage = 'RECEIVED';
    }
    return deposit;
  }

  private async stageForDepositStatus(): Promise<DepositStage> {
    const { ledger } = this;
    switch (ledger.deposit!.status) {
      case 'CONFIRMED':
        return 'CONFIRMED';
      case 'REJECTED':
        if (ledger.refunded() || (!this.rejectedTradeSought && takesPatch(REFUND_READS_WHAT_SETTLED)))
          return this.completedOrReversed();
        throw rejection();
      case 'ACTION_REQUIRED':
        return 'ACTION_REQUIRED';
      default:
        return ledger.trade ? 'CONFIRMED' : 'RECEIVED';
    }
  }

  /** Reads the deposit's record from the service and takes it: a poll, and the look a deposit hint asks for. */
  private async pollDeposit(): Promise<void> {
    this.ledger.applyDeposit(
      await act.getDeposit.executeWithOptions(readOptions('poll the deposit'), [this.depositId]),
    );
  }

  /**
   * Whose deposit it is: the partner's externalId of the customer `customerId` (the customer the
   * service's record of the deposit names), and so its journey; null when it has none. An owner is
   * learned from a signed read or rampflow's own records, never from a payload (workflows/common/trust.ts).
   * rampflow's own index answers first: each journey indexes its customer's service id as
   * `RampCustomerId`, asked in the activity that first read the deposit's record (for the customer
   * that record names; by a local activity when it did not answer). The service's record of the
   * customer is the fallback, for a journey not indexed yet, one past retention, or a customer no
   * journey took (activities/customer-journey-lookup.ts).
   */
  private async journeyOfCustomer(customerId: string): Promise<string | null> {
    const atFirstLook = this.indexedAtFirstLook;
    const indexed =
      atFirstLook?.customerId === customerId
        ? atFirstLook.journey
        : await orPark("finding the deposit's journey", () => journeyIndex.findIndexedJourney(customerId));
    if (indexed !== null) return indexed;
    // A call to the service: an activity on the service queue, at its rate and the deposit's priority.
    return orPark("finding the deposit's customer", () =>
      act.findCustomerExternalId.executeWithOptions(patientReadOptions("find the customer's externalId"), [customerId]),
    );
  }

  // ---- the waits -----------------------------------------------------------------------------------

  /**
   * Waits until `settled`: on the event path, the hints' looks and `pollOnce`, until the step's
   * deadline, where it parks; it ends the run to continue as new when the history has grown.
   * @param how.unannounced no event announces (one of) the awaited outcomes: the wait polls early (workflows/common/waiting.ts)
   */
  private async waitOrPark(
    what: string,
    settled: () => boolean,
    pollOnce: () => Promise<void>,
    how: { unannounced?: boolean } = {},
  ): Promise<void> {
    const { clock, timings, hints } = this;
    const wait = {
      what,
      settled,
      poll: async () => {
        this.index.polled();
        await pollOnce();
      },
      ...(how.unannounced ? { unannounced: true } : {}),
      hints: { pending: () => hints.claimNews(), look: () => this.lookAtHints() },
      pollIntervalMs: timings.pollIntervalSeconds * 1000,
      pollBackoffCapMs: timings.pollBackoffCapSeconds * 1000,
    };
    // A step run again to rebuild the park the previous run carried parks at once on a wait not yet
    // settled (its deadline had passed): only the fact coming true moves it on.
    if (this.carriedParking && !settled()) throw deadlinePassed(wait);
    const deadlineAt = clock.deadline(() => workflowNow() + timings.stepDeadlineSeconds * 1000);
    if (clock.takeLookFirst()) await pollTolerantly(what, pollOnce);
    if (!settled()) this.index.waiting();
    const outcome = await waitForService({
      ...wait,
      deadlineAt,
      now: workflowNow,
      shouldContinueAsNew: depositHistoryFull,
    });
    if (outcome === 'continue-as-new') throw new DepositHistoryFull();
    if (outcome === 'deadline') throw deadlinePassed(wait);
  }

  /**
   * A wait after confirmation also ends on a refund; its polls read the deposit as well as what they
   * wait for, since a refunded deposit's trade or payout never settles (DEPOSIT_REFUND).
   *
   * A refund read here may have come after the service had finished with the deposit, its trade
   * settled and its payout paid while their events were still on the way (the chaos run, seed 3 at 80
   * customers: 7 deposits). Then the deposit completed before it was refunded: returns true, and the
   * run ends COMPLETED and then REVERSED (`end`), so the journey and the partner hear both, as for any
   * refund of a completed deposit. Otherwise the run ends REVERSED here.
   */
  private async waitUnlessRefunded(
    what: string,
    settled: () => boolean,
    pollOnce: () => Promise<void>,
  ): Promise<boolean> {
    const { ledger } = this;
    await this.waitOrPark(
      what,
      () => settled() || ledger.refunded(),
      async () => {
        await this.pollDeposit();
        if (!ledger.refunded()) await pollOnce();
      },
    );
    if (!ledger.refunded()) return false;
    return (await this.completedOrReversed()) === 'COMPLETED';
  }

  /**
   * A deposit read REJECTED after confirmation, or before this run saw it confirmed: COMPLETED when the
   * service had settled it before the refund (the run then ends COMPLETED, then REVERSED: `end`);
   * REVERSED when the service had confirmed it (a trade names it) but not settled it; REJECTED when
   * no trade names it (a rejection). Without the patch, a refund ends REVERSED at once, as it did.
   */
  private async completedOrReversed(): Promise<'COMPLETED'> {
    const { ledger } = this;
    if (takesPatch(REFUND_READS_WHAT_SETTLED)) {
      if (await this.settledBeforeTheRefund()) return 'COMPLETED';
      if (!ledger.refunded()) throw rejection();
    }
    throw this.reversal();
  }

  /**
   * Whether the service had settled the refunded deposit's trade (and paid an offramp's payout) before
   * the refund: read from its records, since the service settles neither once a deposit is refunded.
   */
  private async settledBeforeTheRefund(): Promise<boolean> {
    const { depositId, ledger } = this;
    const known = ledger.trade;
    const trade = await orPark("reading the refunded deposit's trade", () =>
      known
        ? known.status === 'SETTLED'
          ? Promise.resolve(known)
          : act.getTrade.executeWithOptions(patientReadOptions("read the refunded deposit's trade"), [known.id])
        : act.findTradeForDeposit.executeWithOptions(listSearchOptions("look for the refunded deposit's trade"), [
            { depositId, customerId: ledger.deposit!.customerId },
          ]),
    );
    this.rejectedTradeSought = true;
    if (trade) ledger.applyTrade(trade);
    return ledger.trade !== undefined && ledger.confirmedOnce && (await this.completedAtTheService());
  }

  /**
   * Answers the furthest claim of the hints with one read (the oldest such hint under first come, else
   * the newest): a payment (and, when the deposit holds no trade yet, the trade its reference names),
   * else a trade, else the deposit itself. What the service says is taken only when it links the
   * record to this deposit.
   */
  private async lookAtHints(): Promise<void> {
    const { ledger, hints } = this;
    const paymentId = hints.nextPaymentClaim();
    if (paymentId !== undefined) {
      hints.clearPayment(paymentId);
      const record = await readNamed('payment', () =>
        act.getPayment.executeWithOptions(readOptions('read the payment a delivery named'), [
          paymentId,
          { confirming: true },
        ]),
      );
      if (!record) return hints.refusePayment(paymentId);
      const ownTrade = ledger.trade ?? (record.reference ? await this.verifyNamedTrade(record.reference) : undefined);
      if (!(ownTrade && paymentNamesTrade(record, ownTrade.id))) {
        hints.refusePayment(paymentId);
        return countIgnoredHint('depositLifecycle', 'payment-of-another-trade');
      }
      ledger.applyPayment(record);
      return;
    }
    const tradeId = hints.nextTradeClaim();
    if (tradeId !== undefined) {
      hints.clearTrade(tradeId);
      await this.verifyNamedTrade(tradeId);
      return;
    }
    if (hints.depositClaimIsNews()) {
      hints.clearDeposit();
      await this.pollDeposit();
    }
  }

  /** Reads a trade a delivery named; takes it only when the service's record names this deposit. */
  private async verifyNamedTrade(tradeId: string): Promise<TradeRecord | undefined> {
    const { ledger, hints } = this;
    const record = await readNamed('trade', () =>
      act.getTrade.executeWithOptions(readOptions('read the trade a delivery named'), [tradeId, { confirming: true }]),
    );
    if (!record) {
      hints.refuseTrade(tradeId);
      return undefined;
    }
    if (!tradeNamesDeposit(record, this.depositId)) {
      hints.refuseTrade(tradeId);
      countIgnoredHint('depositLifecycle', 'trade-of-another-deposit');
      return undefined;
    }
    ledger.applyTrade(record);
    return ledger.trade === record ? record : undefined;
  }

  // ---- entering a stage ----------------------------------------------------------------------------

  /**
   * Enters `stage`, waiting for `waitingFor`: sets it (the UI's current details), indexes it (the
   * search attributes), counts it (the stage metrics) and tells the journey when it is news for it.
   */
  async enterStage(stage: DepositStage, waitingFor: string): Promise<void> {
    const { state, desk, link } = this;
    // A step run again to rebuild a carried park shows nothing: the deposit stays shown as parked.
    if (this.carriedParking) return;
    stageEntered(stage, state);
    const attentionChanged = desk.attention !== state.attention;
    // At most one upsert per change of stage, carrying the customer when the workflow learned it itself
    // (its starter indexes what it knew at start).
    const others: IndexEntry[] = [
      ...(link.externalId ? [{ key: RampExternalId, value: link.externalId }] : []),
      ...(link.externalId && state.customerId ? [{ key: RampCustomerId, value: state.customerId }] : []),
    ];
    this.index.entered(stage, others, this.indexWhen(stage));
    state.stage = stage;
    state.waitingFor = waitingFor;
    state.attention = desk.attention;
    setCurrentDetails(`**${stage}**: ${waitingFor}`);
    if (isNewsForJourney(link.reportedStage, stage, attentionChanged)) await this.reportToJourney();
  }

  /**
   * When `stage` reaches the index (RampStage, RampStageSince, the customer): where the deposit waits.
   * - A stage that needs someone (ACTION_REQUIRED, NEEDS_ATTENTION) and an end: on entry.
   * - A stage it passes through (CONFIRMED, TRADE_CREATED, TRADE_SETTLED): when its wait starts and is
   *   not settled already; one whose fact is known on entry never is (the next stage's upsert follows
   *   in the same workflow task).
   * - RECEIVED on its first entry (the index shows no other stage): at its wait's first poll (5 s,
   *   workflows/common/waiting.ts), since most deposits are confirmed sooner; entered again after a
   *   park, when its wait starts.
   * Runs recorded before DEPOSIT_FIRST_LOOK index every stage on entry.
   */
  private indexWhen(stage: DepositStage): 'no' | 'until-waiting' | 'until-poll' {
    if (!PASSED_THROUGH.includes(stage) || !takesPatch(DEPOSIT_FIRST_LOOK)) return 'no';
    const shown = workflowInfo().typedSearchAttributes.get(RampStage);
    return stage === 'RECEIVED' && (shown === undefined || shown === 'RECEIVED') ? 'until-poll' : 'until-waiting';
  }

  /** Tells the journey; false when it is not running (ended, or never started). */
  private async reportToJourney(): Promise<boolean> {
    const { link } = this;
    if (!link.journeyId) return false;
    // False when the journey has ended meanwhile (the customer was closed); the deposit still finishes on its own.
    if (
      !(await this.reporter.report(link.journeyId, {
        summary: this.summary(),
        ...(link.reportedStage ? { previousStage: link.reportedStage } : {}),
      }))
    )
      return false;
    link.reportedStage = this.state.stage;
    return true;
  }

  private summary(): DepositSummary {
    const { state, desk } = this;
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

  // ---- parking -------------------------------------------------------------------------------------

  /** Parks the step until an operator decides (or its late fact comes true); the step then runs again. */
  async parkUntilResumed(parked: DepositStage, error: ParkRequest): Promise<void> {
    const carried = this.carriedParking;
    this.carriedParking = undefined;
    // The park the step rebuilt is the one carried (a different one is a park of its own).
    const takesUp = carried !== undefined && carried.attention.reason === error.reason;
    // A different one means the carried one ended meanwhile.
    if (carried && !takesUp) this.desk.resolveCarried(carried);
    const decision = await this.desk.park(
      parked,
      error,
      () => this.enterStage('NEEDS_ATTENTION', `an operator: ${error.reason}`),
      undefined,
      {
        historyFull: depositHistoryFull,
        ...(takesUp ? { carried } : {}),
      },
    );
    if (decision.kind === 'cancel') throw new DepositEnded({ stage: 'CANCELLED', reason: decision.reason });
    // An operator's retry of a deposit no journey takes tracks it anyway (reports are then best effort).
    if (error.errorType === 'CustomerNotServed') this.link.trackWithoutJourney();
    this.clock.resumed(decision.kind === 'retry');
  }

  /**
   * Runs `step` as the first step of a run that continues a parked one. A park with no late fact is
   * taken up without running it; a step that ends otherwise than parked found its fact came true
   * between the runs, and the parking ends as resolved.
   */
  runCarriedParking(step: () => Promise<DepositStage>): Promise<DepositStage> {
    return takeUpCarriedPark(this.carriedParking!, step, () => this.endCarriedParking());
  }

  private endCarriedParking(): void {
    if (!this.carriedParking) return;
    this.desk.resolveCarried(this.carriedParking);
    this.carriedParking = undefined;
    this.clock.resumed(false);
  }

  // ---- the end -------------------------------------------------------------------------------------

  /**
   * Shows the end, lets running handlers (an attachment being submitted) finish, and returns it. A
   * refund that arrived while a COMPLETED end was being shown (its report to the journey can wait out a
   * storm) is the deposit's last word: the run ends REVERSED and tells the journey, since the receiver
   * that delivered the refund to this running workflow started no run of its own for it.
   */
  async end(outcome: DepositOutcome): Promise<DepositOutcome> {
    this.state.outcome = outcome.reason;
    await this.enterStage(outcome.stage, `nothing: ${outcome.reason}`);
    await condition(allHandlersFinished);
    if (outcome.stage === 'COMPLETED' && this.ledger.refunded()) {
      return this.end(this.reversal().outcome);
    }
    return outcome;
  }

  /** A deposit the service does not have: dismissed, and counted. */
  private dismissed(reason: string): DepositEnded {
    countDismissed('depositLifecycle', 'record-not-found');
    return new DepositEnded({ stage: 'DISMISSED', reason });
  }

  /** Money for a customer rampflow does not serve: an operator decides. */
  private notServed(): ParkRequest {
    const { link } = this;
    const reason = link.journeyId
      ? `money arrived for a customer whose journey ${link.journeyId} is not running (ended or never started); retry to track the deposit anyway, or cancel`
      : `money arrived for customer ${this.state.customerId}, who has no externalId, so no rampflow journey; retry to track the deposit anyway, or cancel`;
    return ParkRequest.decidedByService(reason, 'CustomerNotServed');
  }

  /** The service gave the money back after it had confirmed the deposit: REVERSED, and counted. */
  private reversal(): DepositEnded {
    const { ledger, link } = this;
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

  /**
   * Lets running handlers (an attachment being submitted) finish, then continues as new at `stage`
   * (parked there when `parking` is given), carrying what the run holds (workflows/deposit/carry.ts).
   */
  async continueAsNewAt(stage: DepositStage, parking?: CarriedParking): Promise<never> {
    await condition(allHandlersFinished);
    return continueAsNew<DepositLifecycle>(nextRunInput(this.input), carry(this, stage, parking));
  }
}

/**
 * The deposit workflow's signature, as continue-as-new starts it (workflows/deposit/workflow.ts),
 * written here rather than imported so that the run and the workflow do not import each other.
 */
type DepositLifecycle = (request: DepositLifecycleRequest, carried?: CarriedDeposit) => Promise<unknown>;

/** The stages a deposit passes through on its way, indexed only where it waits there (`indexWhen`). */
const PASSED_THROUGH: readonly DepositStage[] = ['RECEIVED', 'CONFIRMED', 'TRADE_CREATED', 'TRADE_SETTLED'];

/** Whether the run, waiting or parked, has grown enough to continue as new. */
function depositHistoryFull(): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength > DEPOSIT_MAX_HISTORY_EVENTS;
}

/**
 * How a deposit tells its journey of its progress: it offers each report by update through an activity
 * (workflows/common/messages.ts, docs/guarantees/signal-storms.md).
 */
class JourneyReporter {
  /** Reports offered so far: the n-th report's key is the same on every attempt. */
  private offered: number;
  /**
   * The run's start: a deposit can run again under its id (a refund after it ended starts a run of
   * its own), and that run's reports are news, not repeats of the first run's. A run that continues
   * another as new keeps its run and count: its reports go on the same sequence of keys.
   */
  private readonly run: string;

  constructor(
    private readonly depositId: string,
    carried?: CarriedReports,
  ) {
    this.run = carried?.run ?? workflowInfo().runStartTime.getTime().toString(36);
    this.offered = carried?.offered ?? 0;
  }

  carry(): CarriedReports {
    return { run: this.run, offered: this.offered };
  }

  /** The first report's key, for the deposit's first look to offer it (`DepositRun.firstLook`); undefined once one was offered. */
  firstKey(): string | undefined {
    return this.offered === 0 ? depositReportKey(this.depositId, this.run, 1) : undefined;
  }

  /** The journey took the first report, offered by the first look: the next report is the second. */
  firstTaken(): void {
    this.offered = Math.max(this.offered, 1);
  }

  /** Tells the journey; false when it is not running (ended, or never started). */
  async report(journeyId: string, progress: DepositProgress): Promise<boolean> {
    this.offered += 1;
    return journeyReports.reportToJourney({
      journeyId,
      report: { key: depositReportKey(this.depositId, this.run, this.offered), progress },
    });
  }
}

/** The service rejected the deposit (or refunded it before this run saw it confirmed, and no trade names it). */
function rejection(): DepositEnded {
  return new DepositEnded({ stage: 'REJECTED', reason: 'the service rejected or refunded the deposit' });
}

/** Lists show a deposit's kind and amount from its memo (client/visibility.ts): the service's, once read. */
function describeInLists(record: DepositRecord): void {
  const memo = { kind: kindOf(record), amount: record.amount, currency: record.currency };
  const current = workflowInfo().memo ?? {};
  if (current.kind !== memo.kind || current.amount !== memo.amount || current.currency !== memo.currency)
    upsertMemo(memo);
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
