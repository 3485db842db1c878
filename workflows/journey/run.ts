/**
 * One run of the customer journey (workflows/journey/workflow.ts): the object that owns the run's
 * state and does its work. Its steps (one per stage), how a stage is entered, how it waits, how it
 * parks and resumes, its handlers, and how the run ends or continues as new are its methods. What it
 * knows is its ledger (workflows/journey/ledger.ts); its deposits' board is workflows/journey/board.ts.
 *
 * Rules (DESIGN, "Workflows"): every wait has an event, a poll and a deadline (the stage's, carried
 * through continue-as-new); failures a retry cannot fix park the journey in NEEDS_ATTENTION for an
 * operator, who ends it or retries it, perhaps in bulk, perhaps with corrected input; the run
 * continues as new before its history grows large, carrying a state of fixed size.
 *
 * A parked journey whose history grows continues as new parked: the next
 * run takes the parking up (`carriedParking`). A park with no late fact is taken up at once; a
 * deadline's park is rebuilt by running its stage again with nothing shown, its passed wait parking at
 * once, so the park looks at the same fact as before.
 */
import {
  type ActivityInterfaceFor,
  allHandlersFinished,
  condition,
  continueAsNew,
  log,
  makeContinueAsNewFunc,
  setCurrentDetails,
  workflowInfo,
} from '@temporalio/workflow';
import type { RampActivities } from '../../activities';
import { SIGNUP_WAIT_DEFAULT_SECONDS, SIGNUP_WAIT_MAX_SECONDS } from '../../config/signup-wait';
import { RampCustomerId, RampExternalId } from '../../observability/search-attributes';
import { changeOptions, orPark, ParkRequest, PRIORITY, readOptions, serviceActivities } from '../common/calls';
import {
  AppliedKeys,
  type CustomerRecord,
  type DepositAddressRecord,
  isAccountApproved,
  isAccountRejected,
  isCustomerApproved,
  type RampEvent,
  type VirtualAccountRecord,
} from '../common/records';
import { journeyTimings, type ResolvedJourneyTimings, workflowNow } from '../common/timings';
import { checkDepositReports, checkSignupRequest } from '../common/checks';
import {
  type DepositProgress,
  type DepositReport,
  type DepositStage,
  type EndRequest,
  type HandOverRequest,
  handOverRefusal,
  JOURNEY_STAGES,
  type JourneyStage,
  type JourneyState,
  type SignupRequest,
  type SignupResult,
} from '../common/messages';
import { indexStage, stageEntered } from '../common/showing';
import type { JourneyInput, OnrampRequest } from '../schemas';
import { type CarriedParking, OperatorDesk, ParkedHistoryFull, Refused, takeUpCarriedPark } from '../common/parking';
import { isHint } from '../common/trust';
import { deadlinePassed, pollTolerantly, waitForService } from '../common/waiting';
import { PartnerEventOutbox } from '../partner-events/outbox';
import { applyDepositProgress } from './board';
import { type CarriedJourney, REPORT_KEYS_REMEMBERED, takeUpCarriedJourney } from './carry';
import { ExitAccounts } from './exits';
import { JourneyLedger } from './ledger';

export interface JourneyOutcome {
  stage: 'REJECTED' | 'CLOSED';
  reason: string;
}

/** Ends the run: the journey reached REJECTED or CLOSED. */
export class JourneyEnded extends Error {
  constructor(readonly outcome: JourneyOutcome) {
    super(outcome.reason);
  }

  static rejected(reason: string): JourneyEnded {
    return new JourneyEnded({ stage: 'REJECTED', reason });
  }

  static closed(reason: string): JourneyEnded {
    return new JourneyEnded({ stage: 'CLOSED', reason });
  }
}

/** Ends the run to continue as new with the carried state, parked when `parking` is given. */
export class ContinueAsNewRequest extends Error {
  constructor(readonly parking?: CarriedParking) {
    super('continue as new');
  }
}

/** A stage's step: it runs the stage and returns the stage to run next. */
export type JourneyStep = () => Promise<JourneyStage>;

/** The journey's workflow function, as continue-as-new starts it again. */
type CustomerJourneyWorkflow = (input: JourneyInput, carriedFromLastRun?: CarriedJourney) => Promise<JourneyOutcome>;

/** The deposit stages the partner hears of; the steps between are the deposit's own business. */
const DEPOSIT_EVENTS = {
  ACTION_REQUIRED: 'deposit.action_required',
  COMPLETED: 'deposit.completed',
  REJECTED: 'deposit.rejected',
  REVERSED: 'deposit.reversed',
} as const satisfies Partial<Record<DepositStage, string>>;

/** Stages where a signup waiting longer for the link is pointless: past KYC, parked for an operator, or ended. */
const NOTHING_TO_WAIT_FOR: ReadonlySet<JourneyStage> = new Set([
  'SETTING_UP_RAMPS',
  'AWAITING_ACCOUNTS',
  'ACTIVE',
  'NEEDS_ATTENTION',
  'REJECTED',
  'CLOSED',
]);

export class JourneyRun {
  /** Replaced by an operator's retry with corrected input. */
  private input: JourneyInput;
  // On the service task queue (workflows/common/calls.ts): a signup goes before bulk work, a
  // journey an operator retried in bulk after it.
  private callPriority: number = PRIORITY.HIGH;
  /** Set by an operator's retry: the retried wait asks the service at once instead of after a poll interval. */
  private lookBeforeWaiting = false;
  /**
   * The parking the previous run handed on, until this run's park takes it up (or its stage finds
   * the fact came true meanwhile): while set, the stage runs again only to rebuild its park.
   */
  private carriedParking: CarriedParking | undefined;
  /** Set once the run hands over (ends or continues as new): deposits' report offers are refused from then on. */
  private handingOver = false;
  /**
   * The task queue an operator's `handOver` signal named (a new major version's): the run continues as
   * new there, by the same path as when its history has grown (`shouldContinueAsNew`).
   */
  private handOverTo: string | undefined;

  private readonly act: ActivityInterfaceFor<RampActivities>;
  private readonly timings: ResolvedJourneyTimings;
  readonly ledger: JourneyLedger;
  private readonly desk: OperatorDesk;
  /** What the partner's product hears of (partner-events/catalogue.ts): facts the journey established. */
  private readonly outbox: PartnerEventOutbox;
  /**
   * Deposits' reports taken by update, each applied once by its key within a window carried through
   * continue-as-new: a sender that lost the answer to an applied offer offers it again.
   */
  private readonly reportKeys: AppliedKeys;

  /**
   * Made before any handler of the journey's own is set: the operator desk sets `retry` and `cancel`
   * here, accepting them at once when the previous run handed on its parking.
   */
  constructor(input: JourneyInput, carriedFromLastRun: CarriedJourney | undefined) {
    this.input = input;
    // Every call passes its own options (reads and changes retry differently) and a summary for the UI.
    this.act = serviceActivities<RampActivities>(changeOptions('a call to the ramp service'), () => this.callPriority);
    // Each timing is resolved where it is used, from the input's overrides and the code's defaults, so a
    // retune reaches a running journey (workflows/common/timings.ts; the earlier code's values replay as they were).
    this.timings = journeyTimings(this.input.timings);
    const carried = carriedFromLastRun ? takeUpCarriedJourney(carriedFromLastRun) : undefined;
    this.ledger = new JourneyLedger(this.input, carried);
    // Parked from the start when the last run handed its parking on: an operator's decision is taken at once.
    this.carriedParking = carried?.parking;
    this.desk = new OperatorDesk(undefined, carried?.parking?.attention);
    this.outbox = new PartnerEventOutbox({ externalId: this.ledger.state.externalId }, carried?.partnerEvents);
    this.reportKeys = new AppliedKeys(carried?.depositReportKeys ?? [], REPORT_KEYS_REMEMBERED);
  }

  private get state(): JourneyState {
    return this.ledger.state;
  }

  /** A run that continued as new resumes the stage it was in; a parked one, the stage it parked. */
  get firstStage(): JourneyStage {
    return (this.carriedParking?.attention.stage as JourneyStage | undefined) ?? this.state.stage;
  }

  // ---- the steps, one per stage ------------------------------------------------------------------

  async createCustomer(): Promise<JourneyStage> {
    this.enterStage('CREATING_CUSTOMER', 'the service to create the customer (looked up by externalId first)');
    this.stopIfEnded();
    const customer = await orPark('creating the customer', () =>
      this.act.ensureCustomer.executeWithOptions(changeOptions('look up or create the customer'), [
        this.input.customer,
      ]),
    );
    this.ledger.rememberCustomerId(customer.id);
    this.ledger.applyCustomer(customer);
    return 'AWAITING_KYC';
  }

  async awaitKyc(): Promise<JourneyStage> {
    const { ledger, state } = this;
    const customerId = state.customer.id!;
    const decided = () =>
      isCustomerApproved(state.customer.status ?? '') ||
      state.customer.status === 'REJECTED' ||
      state.customer.status === 'DELETED';
    this.enterStage(
      'AWAITING_KYC',
      `the customer to pass KYC${state.customer.kycLink ? ` at ${state.customer.kycLink}` : ''} (CUSTOMER_APPROVED)`,
      () => {
        if (!decided()) this.tellKycRequired();
      },
    );
    await this.waitOrPark(
      'the KYC decision',
      decided,
      async () => {
        ledger.customerHints.clear(customerId);
        ledger.applyCustomer(
          await this.act.getCustomer.executeWithOptions(readOptions("poll the customer's KYC status"), [customerId]),
        );
        // A link the service gave only later than the customer's creation.
        if (!decided()) this.tellKycRequired();
      },
      this.timings.kycDeadlineSeconds,
      { hinted: ledger.customerHinted },
    );
    if (state.customer.status === 'REJECTED') throw JourneyEnded.rejected("the service rejected the customer's KYC");
    if (isCustomerApproved(state.customer.status ?? '')) this.outbox.emitOnce('journey.approved', {});
    return 'SETTING_UP_RAMPS';
  }

  async setUpRamps(): Promise<JourneyStage> {
    const { ledger, state } = this;
    const customerId = state.customer.id!;
    await this.findExitAccounts(customerId);
    this.enterStage('SETTING_UP_RAMPS', 'the service to create the autoramp flows (each looked up first)');
    this.stopIfEnded();
    if (this.input.onramp && state.onramp?.cryptoAddressId && !state.onramp.flowId) {
      const { currency } = this.input.onramp;
      const cryptoAddressId = state.onramp.cryptoAddressId;
      const flow = await orPark('creating the onramp', () =>
        this.act.ensureOnramp.executeWithOptions(changeOptions(`look up or create the ${currency} onramp`), [
          { customerId, currency, cryptoAddressId },
        ]),
      );
      state.onramp.flowId = flow.flowId;
      state.onramp.virtualAccount = ledger.accountRecords[flow.virtualAccountId] ?? {
        id: flow.virtualAccountId,
        status: 'PENDING',
      };
    }
    if (this.input.offramp && state.offramp?.bankAccountId && !state.offramp.flowId) {
      this.stopIfEnded();
      const { currency, network } = this.input.offramp;
      const bankAccountId = state.offramp.bankAccountId;
      const flow = await orPark('creating the offramp', () =>
        this.act.ensureOfframp.executeWithOptions(changeOptions(`look up or create the ${currency} offramp`), [
          { customerId, currency, network, bankAccountId },
        ]),
      );
      state.offramp.flowId = flow.flowId;
      state.offramp.depositAddress = ledger.accountRecords[flow.depositAddressId] ?? {
        id: flow.depositAddressId,
        status: 'PENDING',
      };
    }
    return 'AWAITING_ACCOUNTS';
  }

  /**
   * Finds the service's records of the customer's exit accounts, registers those the input says the
   * journey registers (each looked up first), and waits, polling, for those the partner registers.
   */
  private async findExitAccounts(customerId: string): Promise<void> {
    const exits = new ExitAccounts(
      customerId,
      this.input.onramp,
      this.input.offramp,
      this.state,
      () => this.callPriority,
    );
    // The first look is a poll like the later ones: a service failing for a while is waited out (up to
    // the deadline), not parked for an operator after three attempts. It leaves out the exits the
    // journey registers, which registerOwn looks up before adding (two list calls fewer a journey).
    await pollTolerantly("the customer's exit accounts", exits.lookForPartners);
    this.stopIfEnded();
    await orPark("registering the customer's exit accounts", () => exits.registerOwn());
    if (exits.missing().length === 0) return;
    this.enterStage('SETTING_UP_RAMPS', `the partner to register ${exits.missing().join(' and ')} with the service`);
    // No event announces the partner's registrations: the wait polls early.
    await this.waitOrPark(
      `the partner to register ${exits.missing().join(' and ')} with the service`,
      () => exits.missing().length === 0,
      exits.look,
      this.timings.accountsDeadlineSeconds,
      { unannounced: true },
    );
  }

  /** The virtual account and the deposit address approved, then the AUD source account whitelisted. */
  async awaitAccounts(): Promise<JourneyStage> {
    const { ledger, state } = this;
    const customerId = state.customer.id!;
    const virtualAccount = () => state.onramp?.virtualAccount;
    const depositAddress = () => state.offramp?.depositAddress;
    const decided = (record: { status: string } | undefined) =>
      !record || isAccountApproved(record.status) || isAccountRejected(record.status);
    /** An undecided account a delivery says the service has decided: read it now (the details users pay into come only from that read). */
    const hinted = (record: { id: string; status: string } | undefined) =>
      record !== undefined && !decided(record) && ledger.accountHints.has(record.id);
    this.enterStage('AWAITING_ACCOUNTS', 'the service to approve the virtual account / deposit address');
    await this.waitOrPark(
      'the account approvals',
      () => decided(virtualAccount()) && decided(depositAddress()),
      async () => {
        // A look a hint asked for reads only the hinted accounts; a poll reads every undecided one.
        const onlyHinted = hinted(virtualAccount()) || hinted(depositAddress());
        const va = virtualAccount();
        if (va && !decided(va) && (!onlyHinted || hinted(va))) {
          ledger.accountHints.clear(va.id);
          ledger.applyAccount(
            await this.act.getVirtualAccount.executeWithOptions(readOptions('poll the virtual account'), [
              { customerId, virtualAccountId: va.id },
            ]),
          );
        }
        const da = depositAddress();
        if (da && !decided(da) && (!onlyHinted || hinted(da))) {
          ledger.accountHints.clear(da.id);
          ledger.applyAccount(
            await this.act.getDepositAddress.executeWithOptions(readOptions('poll the deposit address'), [
              { customerId, depositAddressId: da.id },
            ]),
          );
        }
      },
      this.timings.accountsDeadlineSeconds,
      { hinted: () => hinted(virtualAccount()) || hinted(depositAddress()) },
    );
    for (const [what, record] of [
      ['virtual account', virtualAccount()],
      ['deposit address', depositAddress()],
    ] as const) {
      if (record && isAccountRejected(record.status))
        throw ParkRequest.decidedByService(`the service rejected the ${what} ${record.id}`, 'Rejected');
    }

    const source = this.input.onramp?.audSourceAccount;
    const va = virtualAccount();
    if (source && va && state.onramp && !state.onramp.whitelisted) await this.awaitWhitelist(source, va.id);
    this.tellAccountsReady();
    return 'ACTIVE';
  }

  /** The AUD source account on the virtual account's whitelist (part of AWAITING_ACCOUNTS, under its deadline). */
  private async awaitWhitelist(
    source: NonNullable<OnrampRequest['audSourceAccount']>,
    virtualAccountId: string,
  ): Promise<void> {
    this.enterStage('AWAITING_ACCOUNTS', 'the service to whitelist the AUD source account');
    const listed = (entries: { bsbNumber: string; accountNumber: string; accountStatus?: string }[]) =>
      entries.some(
        (entry) =>
          entry.bsbNumber === source.bsbNumber &&
          entry.accountNumber === source.accountNumber &&
          (entry.accountStatus ?? 'active').toLowerCase() === 'active',
      );
    const entries = await orPark('whitelisting the AUD source account', () =>
      this.act.ensureAudWhitelist.executeWithOptions(
        changeOptions('look up or add the AUD source account to the whitelist'),
        [{ virtualAccountId, sourceAccount: source }],
      ),
    );
    let whitelisted = listed(entries);
    this.stopIfEnded();
    // No event announces the whitelist, which the interface promises "with a short delay" after
    // approval: the poll is the only way to learn of it, so it polls early.
    await this.waitOrPark(
      'the AUD whitelist',
      () => whitelisted,
      async () => {
        whitelisted = listed(
          await this.act.getAudWhitelist.executeWithOptions(readOptions('poll the AUD whitelist'), [virtualAccountId]),
        );
      },
      this.timings.accountsDeadlineSeconds,
      { unannounced: true },
    );
    this.state.onramp!.whitelisted = true;
  }

  /**
   * The customer's life: deposits run as their own workflows and report here. Nothing to ask the
   * service and no timer: deposits no event announced are found by the partner-wide reconciliation,
   * which starts their workflows.
   */
  async stayActive(): Promise<never> {
    this.enterStage('ACTIVE', 'deposits (each runs as its own deposit workflow and reports here)', () =>
      this.outbox.emitOnce('journey.active', {}),
    );
    await condition(() => this.ledger.endRequested() || this.shouldContinueAsNew());
    this.stopIfEnded();
    throw new ContinueAsNewRequest();
  }

  // ---- entering a stage ---------------------------------------------------------------------------

  /**
   * Sets the stage and what it waits for (the UI's current details), indexes it (one upsert per change
   * of stage, carrying what else the journey learned since: its externalId when its starter did not
   * index it, the service's customer id once known) and counts it; then tells the partner what it
   * hears of it, if anything. A stage run again to rebuild a carried park shows nothing: the journey
   * stays shown as parked (the partner was told by the run that parked, and once-only events are not
   * repeated).
   */
  private enterStage(stage: JourneyStage, waitingFor: string, tellPartner?: () => void): void {
    if (!this.carriedParking) {
      stageEntered(stage);
      this.ledger.setStage(stage, waitingFor, this.desk.attention);
      indexStage(stage, [
        { key: RampExternalId, value: this.state.externalId },
        ...(this.state.customer.id ? [{ key: RampCustomerId, value: this.state.customer.id }] : []),
      ]);
      setCurrentDetails(`**${stage}**: ${waitingFor}`);
    }
    tellPartner?.();
  }

  // ---- waiting for the service ----------------------------------------------------------------------

  /**
   * True when the run should continue as new: its history has grown enough, or an operator asked it to
   * hand over to another task queue. Every wait that wakes for the one wakes for the other: the waits
   * (`waitOrPark`), ACTIVE's condition and the parked desk's `historyFull`.
   */
  private readonly shouldContinueAsNew = (): boolean =>
    this.handOverTo !== undefined ||
    workflowInfo().continueAsNewSuggested ||
    workflowInfo().historyLength > this.timings.maxHistoryEvents;

  /**
   * Every wait has an event, a poll and a deadline (the stage's, carried through continue-as-new); it
   * ends the run to continue as new when the history has grown, parks at the deadline, and stops when
   * the journey was told to end.
   *
   * @param how.hinted whether deliveries' hints wait for a look
   * @param how.unannounced no event announces the fact: the wait polls early (workflows/common/waiting.ts)
   */
  private async waitOrPark(
    what: string,
    settled: () => boolean,
    pollOnce: () => Promise<void>,
    deadlineSeconds: number,
    how: { hinted?: () => boolean; unannounced?: boolean } = {},
  ): Promise<void> {
    const { hinted } = how;
    const wait = {
      what,
      settled: () => settled() || this.ledger.endRequested(),
      poll: pollOnce,
      ...(how.unannounced ? { unannounced: true } : {}),
      // A hinted look is the poll: it reads what the hints name (and clears them first).
      ...(hinted ? { hints: { pending: hinted, look: pollOnce } } : {}),
      pollIntervalMs: this.timings.pollIntervalSeconds * 1000,
      pollBackoffCapMs: this.timings.pollBackoffCapSeconds * 1000,
    };
    // A stage run again to rebuild the park the previous run carried parks at once on a wait not yet
    // settled (its deadline had passed): only the fact coming true moves it on.
    if (this.carriedParking && !wait.settled()) throw deadlinePassed(wait);
    if (this.lookBeforeWaiting) {
      this.lookBeforeWaiting = false;
      await pollTolerantly(what, pollOnce);
    }
    const outcome = await waitForService({
      ...wait,
      deadlineAt: this.ledger.deadline(deadlineSeconds),
      now: workflowNow,
      shouldContinueAsNew: this.shouldContinueAsNew,
    });
    if (outcome === 'continue-as-new') throw new ContinueAsNewRequest();
    if (outcome === 'deadline') throw deadlinePassed(wait);
    this.stopIfEnded();
  }

  // ---- parking and an operator's decision -----------------------------------------------------------

  /** Runs a stage's step; the first of a run that continues a parked one only rebuilds its park. */
  runStep(step: JourneyStep): Promise<JourneyStage> {
    return this.carriedParking ? this.rebuildCarriedPark(step) : step();
  }

  /**
   * Parks the stage until an operator decides (workflows/common/parking.ts); returns the stage to run
   * next. A park whose history grows ends the run to continue as new, still parked.
   */
  async parkUntilDecided(parkedStage: JourneyStage, request: ParkRequest): Promise<JourneyStage> {
    const { ledger } = this;
    const carried = this.carriedParking;
    // The park the stage rebuilt is the one carried; a different one means the carried one ended meanwhile.
    const takesUp = carried !== undefined && carried.attention.reason === request.reason;
    if (carried && !takesUp) this.endCarriedParking();
    this.carriedParking = undefined;
    let decision;
    try {
      decision = await this.desk.park(
        parkedStage,
        request,
        () =>
          this.enterStage('NEEDS_ATTENTION', `an operator: ${request.reason}`, () =>
            this.outbox.emit('journey.needs_attention', { stage: parkedStage, reason: request.reason }),
          ),
        ledger.endRequested,
        {
          historyFull: this.shouldContinueAsNew,
          ...(takesUp ? { carried } : {}),
        },
      );
    } catch (error) {
      if (!(error instanceof ParkedHistoryFull)) throw error;
      throw new ContinueAsNewRequest(error.parking);
    }
    if (decision.kind === 'cancel') throw JourneyEnded.closed(decision.reason);
    this.stopIfEnded();
    this.outbox.emit('journey.resumed', { stage: parkedStage });
    ledger.forgetDeadline(); // a retried wait gets a fresh deadline
    if (decision.kind !== 'retry') return parkedStage;
    this.lookBeforeWaiting = true;
    // A retry among thousands waits behind signups; a single retry is someone waiting.
    this.callPriority = decision.request.bulk ? PRIORITY.LOW : PRIORITY.HIGH;
    const corrected = decision.request.correctedInput;
    const { state } = ledger;
    if (corrected) {
      this.input = { ...this.input, ...corrected };
      // Corrected ramps are looked for and set up afresh.
      if (corrected.onramp && state.onramp) state.onramp = { currency: corrected.onramp.currency };
      if (corrected.offramp && state.offramp)
        state.offramp = { currency: corrected.offramp.currency, network: corrected.offramp.network };
    }
    // New ramps are set up afresh, even when the journey was parked after setting up the old ones.
    const rampsCorrected = corrected?.onramp !== undefined || corrected?.offramp !== undefined;
    if (rampsCorrected && JOURNEY_STAGES.indexOf(parkedStage) > JOURNEY_STAGES.indexOf('SETTING_UP_RAMPS'))
      return 'SETTING_UP_RAMPS';
    return parkedStage;
  }

  /**
   * Runs `step` as the first stage of a run that continues a parked one. A park with no late fact is
   * taken up without running it; a stage that ends otherwise than parked found its fact came true
   * between the runs, and the parking ends as resolved.
   */
  private rebuildCarriedPark(step: JourneyStep): Promise<JourneyStage> {
    return takeUpCarriedPark(this.carriedParking!, step, () => this.endCarriedParking());
  }

  /** The carried parking ended by itself: counted and told as the park that took it up would have. */
  private endCarriedParking(): void {
    const carried = this.carriedParking;
    if (!carried) return;
    this.carriedParking = undefined;
    this.desk.resolveCarried(carried);
    // As a park that ends when the journey is told to end, which tells the partner only of the end.
    if (!this.ledger.endRequested()) this.outbox.emit('journey.resumed', { stage: carried.attention.stage });
    this.ledger.forgetDeadline();
  }

  // ---- handlers ---------------------------------------------------------------------------------------
  // Hints are not de-duplicated by key: each costs at most one read, and a forged delivery that came
  // first must not use up the key of the genuine one.

  readonly onCustomerEvent = (event: RampEvent<CustomerRecord>): void => {
    if (isHint(event)) this.ledger.noteCustomerHint(event.record);
    else this.ledger.applied.applyOnce(event.key, () => this.ledger.applyCustomer(event.record));
  };

  /** A delivery about the virtual account or the deposit address. */
  readonly onAccountEvent = (event: RampEvent<VirtualAccountRecord | DepositAddressRecord>): void => {
    if (isHint(event)) this.ledger.accountHints.note(event.record);
    else this.ledger.applied.applyOnce(event.key, () => this.ledger.applyAccount(event.record));
  };

  /** A deposit's report by signal: 0.x deposits that started before reports were offered by update still send it. */
  readonly onDepositProgress = (report: DepositProgress): void => this.takeDepositProgress(report);

  /**
   * Deposits of this code offer their reports by update (workflows/common/messages.ts), which
   * the journey refuses while it hands over to its next run (the sender offers it again, and the next
   * run takes it): a storm of reports waits with its senders, not in this history, and no report is
   * applied to a board that has already been carried.
   */
  readonly validateDepositReports = (reports: DepositReport[]): void => {
    if (this.handingOver) throw Refused.handingOver();
    const checked = checkDepositReports(reports);
    if (!checked.ok) throw Refused.invalid('deposit reports', checked.issues);
  };

  readonly takeDepositReports = (reports: DepositReport[]): { taken: number } => {
    for (const { key, progress } of reports) this.reportKeys.applyOnce(key, () => this.takeDepositProgress(progress));
    return { taken: reports.length };
  };

  private takeDepositProgress(progress: DepositProgress): void {
    if (applyDepositProgress(this.state.deposits, progress)) this.tellDepositProgress(progress);
  }

  readonly describe = (): JourneyState => ({ ...this.state, attention: this.desk.attention });

  /**
   * The `signup` update (workflows/common/messages.ts): signup in one round trip. Sent with the
   * journey's start (update-with-start) or to the journey already running for the externalId, it
   * waits, at most the wait the caller asked (capped), until the journey knows the customer's KYC link,
   * has moved past AWAITING_KYC, or has parked or ended; then answers the stage and the link if known.
   *
   * The link is only ever the service's own record (ensureCustomer's or a poll's read, applied by the
   * journey), never a delivery's payload: the handler reads the journey's state and changes nothing.
   *
   * Replay: the timer of the handler's bounded wait is a command only a run that received this update
   * issues. Histories recorded before the update existed never delivered it, so the handler never runs
   * when they replay and they replay with the same commands; registering a handler issues none.
   */
  readonly answerSignup = async (request: SignupRequest = {}): Promise<SignupResult> => {
    const { state } = this;
    const waitSeconds = Math.min(
      Math.max(request.waitSeconds ?? SIGNUP_WAIT_DEFAULT_SECONDS, 0),
      SIGNUP_WAIT_MAX_SECONDS,
    );
    const answerable = () => state.customer.kycLink !== undefined || NOTHING_TO_WAIT_FOR.has(state.stage);
    if (!answerable() && waitSeconds > 0) await condition(answerable, waitSeconds * 1000);
    const { kycLink } = state.customer;
    return { stage: state.stage, waitingFor: state.waitingFor, ...(kycLink !== undefined ? { kycLink } : {}) };
  };

  /**
   * The `handOver` signal (workflows/common/messages.ts). A signal cannot be refused, so a target the
   * journey cannot go to (malformed, or its own queue) is ignored with a warning that says why (never
   * the name given, which may be anything). A journey that is ending ends: every wait looks at the end
   * before it looks at `shouldContinueAsNew`.
   */
  readonly onHandOver = (request: HandOverRequest): void => {
    const refusal = handOverRefusal(request?.taskQueue, workflowInfo().taskQueue);
    if (refusal !== undefined) {
      log.warn('hand-over ignored: the target is not a task queue this journey can move to', { refusal });
      return;
    }
    this.handOverTo = request.taskQueue;
  };

  readonly validateClose = (_request: EndRequest): void => {
    if (this.state.stage === 'CLOSED' || this.state.stage === 'REJECTED') throw Refused.ended(this.state.stage);
  };

  readonly close = (request: EndRequest): { closed: true } => {
    this.ledger.requestEnd(request.reason ?? 'closed by an operator');
    return { closed: true as const };
  };

  // ---- how the run stops ------------------------------------------------------------------------------

  /** Ends the run as CLOSED if the journey was told to end. */
  private stopIfEnded(): void {
    if (this.ledger.endRequested()) throw JourneyEnded.closed(this.ledger.endReason!);
  }

  /**
   * Records the end in the state, the UI and the partner's events, and refuses further deposit
   * reports; then waits for the handlers and the events before it returns the outcome.
   */
  async end(outcome: JourneyOutcome): Promise<JourneyOutcome> {
    this.ledger.state.outcome = outcome.reason;
    this.handingOver = true;
    this.enterStage(outcome.stage, `nothing: ${outcome.reason}`, () => {
      if (outcome.stage === 'REJECTED') this.outbox.emitOnce('journey.rejected', { reason: outcome.reason });
      else this.outbox.emitOnce('journey.closed', { reason: outcome.reason });
    });
    await condition(allHandlersFinished);
    await this.outbox.drained();
    return outcome;
  }

  /**
   * Continues as new with what the run established (workflows/journey/carry.ts), parked when `parking`
   * is given: deposit reports are refused first, then the handlers finish and the partner events are
   * recorded. On the task queue a `handOver` named, if any: the next run is the other queue's workers'.
   */
  async continueAsNew(parking: CarriedParking | undefined): Promise<never> {
    this.handingOver = true;
    await condition(allHandlersFinished);
    await this.outbox.drained();
    const next = this.ledger.carry(this.outbox.carry(), this.reportKeys.carry(), parking);
    // Only the overrides go on: the next run resolves the rest from the code's defaults of its day.
    const input = { ...this.input, timings: this.timings.overrides };
    if (this.handOverTo === undefined) return continueAsNew<CustomerJourneyWorkflow>(input, next);
    log.info('handing the journey over to another task queue', { taskQueue: this.handOverTo });
    return makeContinueAsNewFunc<CustomerJourneyWorkflow>({ taskQueue: this.handOverTo })(input, next);
  }

  // ---- what the partner hears ---------------------------------------------------------------------------
  // Each is told where the journey has just established the fact from the service's own record (the
  // customer it created or read, the accounts it read, a deposit's report, which the deposit workflow
  // sends only after reading its own record).

  /** The customer exists at the service and has a KYC link to open. */
  private tellKycRequired(): void {
    const { kycLink } = this.state.customer;
    if (kycLink) this.outbox.emitOnce('journey.kyc_required', { kycLink });
  }

  /** The receiving accounts are approved: their details, as the service's detail reads gave them. */
  private tellAccountsReady(): void {
    const va = this.state.onramp?.virtualAccount;
    const da = this.state.offramp?.depositAddress;
    this.outbox.emitOnce('journey.accounts_ready', {
      ...(va ? { virtualAccount: pick(va, ['id', 'currency', 'accountNumber', 'bicSwift', 'payId', 'bankName']) } : {}),
      ...(da ? { depositAddress: pick(da, ['id', 'address', 'network', 'currency']) } : {}),
    });
  }

  /** A deposit's report the board counted as news: first sight, then the stages the partner hears of. */
  private tellDepositProgress({ summary, previousStage }: DepositProgress): void {
    const facts = {
      depositId: summary.depositId,
      kind: summary.kind,
      amount: summary.amount,
      currency: summary.currency,
    };
    // Facts once per deposit (outbox.ts, FACT IDS): a reset journey telling them again is not heard
    // twice. The service may ask for action on a deposit more than once: each ask is news.
    if (previousStage === undefined) this.outbox.emitFact('deposit.received', facts, summary.depositId);
    switch (summary.stage) {
      case 'ACTION_REQUIRED':
        this.outbox.emit(DEPOSIT_EVENTS.ACTION_REQUIRED, facts);
        break;
      case 'REJECTED':
        this.outbox.emitFact(DEPOSIT_EVENTS.REJECTED, facts, summary.depositId);
        break;
      case 'COMPLETED':
        this.outbox.emitFact(
          DEPOSIT_EVENTS.COMPLETED,
          {
            ...facts,
            ...(summary.tradeId ? { tradeId: summary.tradeId } : {}),
            ...(summary.paymentId ? { paymentId: summary.paymentId } : {}),
          },
          summary.depositId,
        );
        break;
      case 'REVERSED':
        this.outbox.emitFact(
          DEPOSIT_EVENTS.REVERSED,
          { ...facts, after: previousStage ?? 'COMPLETED' },
          summary.depositId,
        );
        break;
      default:
    }
  }
}

/** Refuses (before anything enters the history) a signup request the contract does not allow. */
export function validateSignup(request: SignupRequest = {}): void {
  const checked = checkSignupRequest(request);
  if (!checked.ok) throw Refused.invalid('signup request', checked.issues);
}

/** Only the named fields that are set: an event carries what the partner needs and no more. */
function pick<T extends object, K extends keyof T>(record: T, keys: readonly K[]): Pick<T, K> {
  const picked = {} as Pick<T, K>;
  for (const key of keys) if (record[key] !== undefined) picked[key] = record[key];
  return picked;
}
