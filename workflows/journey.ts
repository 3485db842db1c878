/**
 * The customer journey, `customer/<externalId>`: creation, KYC, autoramp setup, account approvals,
 * then ACTIVE for the customer's life. Each deposit runs as its own workflow (`deposit/<id>`, started
 * by whoever hears of it first) and reports its progress here; the journey keeps a bounded view.
 *
 * Rules (DESIGN, "Workflows"): every wait has an event, a poll and a deadline; failures a retry cannot
 * fix park the journey in NEEDS_ATTENTION for an operator; events are applied at most once and state
 * only moves forward; the journey continues as new before its history grows large, carrying a state
 * of fixed size. An ACTIVE journey with nothing happening runs no timer and makes no call.
 */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { RampActivities } from '../activities';
import { changeOptions, readOptions } from './activity-options';
import { PRIORITY, serviceActivities } from './service-activities';
import { AppliedKeys } from './applied-keys';
import { workflowNow } from './clock';
import { applyDepositProgress, emptyDepositBoard } from './deposit-board';
import { DepositReportIntake } from './deposit-report-intake';
import { ExitAccounts } from './exit-accounts';
import { indexStage } from './indexing';
import { MAX_ACCOUNT_RECORDS, upgradeCarriedJourney, type AnyCarriedJourney, type CarriedJourney } from './journey-carry';
import type { JourneyInput } from './journey-input';
import {
  closeCustomerUpdate,
  customerEventSignal,
  depositAddressEventSignal,
  depositProgressSignal,
  journeyStateQuery,
  JOURNEY_STAGES,
  virtualAccountEventSignal,
  type DepositProgress,
  type DepositSummary,
  type EndRequest,
  type JourneyStage,
  type JourneyState,
} from './messages';
import { OperatorDesk } from './operator';
import { isCustomerApproved, type CustomerRecord, type DepositAddressRecord, type VirtualAccountRecord } from './records';
import { RampCustomerId, RampExternalId } from './search-attributes';
import { orPark, ParkRequest } from './service-failures';
import { advancesAccount, advancesCustomer, isAccountApproved, isAccountRejected } from './status-order';
import { registerSignup } from './signup';
import { stageEntered } from './stage-metrics';
import { validatedStartInput } from './start-input';
import { JourneyEvents } from './journey-events';
import { journeyTimings } from './timings';
import { isHint, PendingHints } from './trust';
import { deadlinePassed, pollTolerantly, waitForService } from './waiting';

export type { CarriedJourney } from './journey-carry';

export interface JourneyOutcome {
  stage: 'REJECTED' | 'CLOSED';
  reason: string;
}

/** The patch that stopped looking for the journey's own exits before registering them. */
export const OWN_EXITS_LOOKED_UP_ONCE = 'own-exits-looked-up-once';

/** Ends the run: the journey reached REJECTED or CLOSED. */
class JourneyEnded extends Error {
  constructor(readonly outcome: JourneyOutcome) {
    super(outcome.reason);
  }
}

/** Ends the run to continue as new with the carried state. */
class ContinueAsNewRequest extends Error {}

export async function customerJourney(initialInput: JourneyInput, carriedFromLastRun?: AnyCarriedJourney): Promise<JourneyOutcome> {
  // On the service task queue (workflows/service-activities.ts): a signup goes before bulk work, a
  // journey an operator retried in bulk after it.
  let callPriority: number = PRIORITY.HIGH;
  // Every call passes its own options (reads and changes retry differently) and a summary for the UI.
  const act = serviceActivities<RampActivities>(changeOptions('a call to the ramp service'), () => callPriority);
  // Checked on the first run only: a run that continued as new carries input this code already checked.
  let input = carriedFromLastRun ? initialInput : validatedStartInput('customerJourney', initialInput);
  // Each timing is resolved where it is used, from the input's overrides and the code's defaults, so a
  // retune reaches a running journey (workflows/timings.ts; the earlier code's values replay as they were).
  const timings = journeyTimings(input.timings, !carriedFromLastRun);
  const carried = carriedFromLastRun ? upgradeCarriedJourney(carriedFromLastRun) : undefined;
  const state: JourneyState = carried?.state ?? {
    externalId: input.customer.externalId,
    stage: 'CREATING_CUSTOMER',
    waitingFor: 'the customer to be created',
    customer: {},
    ...(input.onramp ? { onramp: { currency: input.onramp.currency } } : {}),
    ...(input.offramp ? { offramp: { currency: input.offramp.currency, network: input.offramp.network } } : {}),
    deposits: emptyDepositBoard(),
  };
  const applied = new AppliedKeys(carried?.appliedEventKeys);
  const accountRecords: Record<string, VirtualAccountRecord | DepositAddressRecord> = { ...(carried?.accountRecords ?? {}) };
  let stageDeadlineAt = carried?.stageDeadlineAt;
  let closeReason: string | undefined;
  /** Set by an operator's retry: the retried wait asks the service at once instead of after a poll interval. */
  let lookBeforeWaiting = false;
  const desk = new OperatorDesk();
  /**
   * What deliveries claimed about the customer and its accounts, waiting for a look (workflows/trust.ts):
   * a payload never becomes the journey's state; the service's record, read when a hint claims news,
   * does. Not carried through continue-as-new: a hint lost there is found by the next poll.
   */
  const customerHints = new PendingHints(2);
  const accountHints = new PendingHints(MAX_ACCOUNT_RECORDS);
  /** What the partner's product hears of (workflows/journey-events.ts): facts the journey established. */
  const events = new JourneyEvents(state.externalId, carried?.partnerEvents);

  // ---- what the UI and the search attributes show ----------------------------------------------

  function show(stage: JourneyStage, waitingFor: string): void {
    stageEntered(stage);
    state.stage = stage;
    state.waitingFor = waitingFor;
    state.attention = desk.attention;
    // One upsert per change of stage, carrying what else the journey learned since the last one (its
    // externalId when its starter did not index it, the service's customer id once known).
    indexStage(stage, [
      { key: RampExternalId, value: state.externalId },
      ...(state.customer.id ? [{ key: RampCustomerId, value: state.customer.id }] : []),
    ]);
    setCurrentDetails(`**${stage}**: ${waitingFor}`);
  }

  /** Indexed with the next stage shown. */
  function rememberCustomerId(id: string): void {
    state.customer.id = id;
  }

  // ---- events: applied at most once, moving state only forward ----------------------------------

  function applyCustomer(record: CustomerRecord): void {
    if (state.customer.id && record.id !== state.customer.id) return;
    if (!advancesCustomer(state.customer.status, record.status)) return;
    rememberCustomerId(record.id);
    state.customer.status = record.status;
    if (record.kycLink) state.customer.kycLink = record.kycLink;
    if (record.status === 'DELETED') closeReason ??= 'the service deleted the customer';
  }

  function applyAccount(record: VirtualAccountRecord | DepositAddressRecord): void {
    const known = accountRecords[record.id];
    if (known && !advancesAccount(known.status, record.status)) return;
    delete accountRecords[record.id]; // re-inserted last: the oldest record is the one dropped at the cap
    accountRecords[record.id] = record;
    for (const id of Object.keys(accountRecords).slice(0, -MAX_ACCOUNT_RECORDS)) delete accountRecords[id];
    if (state.onramp?.virtualAccount?.id === record.id) state.onramp.virtualAccount = record;
    if (state.offramp?.depositAddress?.id === record.id) state.offramp.depositAddress = record;
  }

  /** A hint about another customer than the journey's own is dropped: it can only be a forgery or a misroute. */
  function noteCustomerHint(record: CustomerRecord): void {
    if (state.customer.id !== undefined && record.id !== state.customer.id) return;
    customerHints.note(record);
  }

  /** Whether a hint claims the customer's KYC was decided beyond what the service last told the journey. */
  const customerHinted = (): boolean => {
    const claim = customerHints.claimFor(state.customer.id);
    return claim !== undefined && advancesCustomer(state.customer.status, claim) && claim !== state.customer.status;
  };

  // Hints are not de-duplicated by key: each costs at most one read, and a forged delivery that came
  // first must not use up the key of the genuine one.
  setHandler(customerEventSignal, (event) => (isHint(event) ? noteCustomerHint(event.record) : applied.applyOnce(event.key, () => applyCustomer(event.record))));
  setHandler(virtualAccountEventSignal, (event) => (isHint(event) ? accountHints.note(event.record) : applied.applyOnce(event.key, () => applyAccount(event.record))));
  setHandler(depositAddressEventSignal, (event) => (isHint(event) ? accountHints.note(event.record) : applied.applyOnce(event.key, () => applyAccount(event.record))));
  // Deposit workflows of the previous code sent the bare summary.
  const applyProgress = (progress: DepositProgress): void => {
    if (applyDepositProgress(state.deposits, progress)) events.depositProgress(progress);
  };
  setHandler(depositProgressSignal, (report: DepositProgress | DepositSummary) => applyProgress('summary' in report ? report : { summary: report }));
  // Deposits of this code offer their reports by update, which the journey can refuse while it hands
  // over (workflows/deposit-reports.ts): a storm of reports waits with its senders, not in this history.
  const reports = new DepositReportIntake(applyProgress, carried?.depositReportKeys);
  setHandler(journeyStateQuery, () => ({ ...state, attention: desk.attention }));
  registerSignup(state);
  setHandler(
    closeCustomerUpdate,
    (request) => {
      closeReason ??= request.reason ?? 'closed by an operator';
      return { closed: true as const };
    },
    {
      validator: (_request: EndRequest) => {
        if (state.stage === 'CLOSED' || state.stage === 'REJECTED') throw new Error(`the journey has already ended (${state.stage})`);
      },
    },
  );

  // ---- helpers shared by the stages ------------------------------------------------------------

  const endRequested = (): boolean => closeReason !== undefined;
  const shouldContinueAsNew = (): boolean =>
    workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > timings.maxHistoryEvents;

  function deadline(seconds: number): number {
    stageDeadlineAt ??= workflowNow() + seconds * 1000;
    return stageDeadlineAt;
  }

  function stopIfEnded(): void {
    if (endRequested()) throw new JourneyEnded({ stage: 'CLOSED', reason: closeReason! });
  }

  async function waitOrPark(what: string, settled: () => boolean, pollOnce: () => Promise<void>, deadlineSeconds: number, hinted?: () => boolean): Promise<void> {
    const wait = {
      what,
      settled: () => settled() || endRequested(),
      poll: pollOnce,
      // A hinted look is the poll: it reads what the hints name (and clears them first).
      ...(hinted ? { hints: { pending: hinted, look: pollOnce } } : {}),
      pollIntervalMs: timings.pollIntervalSeconds * 1000,
      // Journeys started before the backoff carry no cap: they poll as they always did.
      pollBackoffCapMs: (timings.pollBackoffCapSeconds ?? timings.pollIntervalSeconds) * 1000,
    };
    if (lookBeforeWaiting) {
      lookBeforeWaiting = false;
      await pollTolerantly(what, pollOnce);
    }
    const outcome = await waitForService({ ...wait, deadlineAt: deadline(deadlineSeconds), now: workflowNow, shouldContinueAsNew });
    if (outcome === 'continue-as-new') throw new ContinueAsNewRequest();
    if (outcome === 'deadline') throw deadlinePassed(wait);
    stopIfEnded();
  }

  // ---- the stages --------------------------------------------------------------------------------

  async function creatingCustomer(): Promise<JourneyStage> {
    show('CREATING_CUSTOMER', 'the service to create the customer (looked up by externalId first)');
    stopIfEnded();
    const customer = await orPark('creating the customer', () =>
      act.ensureCustomer.executeWithOptions(changeOptions('look up or create the customer'), [input.customer]),
    );
    rememberCustomerId(customer.id);
    applyCustomer(customer);
    return 'AWAITING_KYC';
  }

  async function awaitingKyc(): Promise<JourneyStage> {
    const customerId = state.customer.id!;
    show('AWAITING_KYC', `the customer to pass KYC${state.customer.kycLink ? ` at ${state.customer.kycLink}` : ''} (CUSTOMER_APPROVED)`);
    const decided = () => isCustomerApproved(state.customer.status ?? '') || state.customer.status === 'REJECTED' || state.customer.status === 'DELETED';
    if (!decided()) events.kycRequired(state);
    await waitOrPark(
      'the KYC decision',
      decided,
      async () => {
        customerHints.clear(customerId);
        applyCustomer(await act.getCustomer.executeWithOptions(readOptions('poll the customer\'s KYC status'), [customerId]));
        // A link the service gave only later than the customer's creation.
        if (!decided()) events.kycRequired(state);
      },
      timings.kycDeadlineSeconds,
      customerHinted,
    );
    if (state.customer.status === 'REJECTED') throw new JourneyEnded({ stage: 'REJECTED', reason: 'the service rejected the customer\'s KYC' });
    if (isCustomerApproved(state.customer.status ?? '')) events.approved();
    return 'SETTING_UP_RAMPS';
  }

  async function settingUpRamps(): Promise<JourneyStage> {
    const customerId = state.customer.id!;
    await findExits(customerId);
    show('SETTING_UP_RAMPS', 'the service to create the autoramp flows (each looked up first)');
    stopIfEnded();
    if (input.onramp && state.onramp?.cryptoAddressId && !state.onramp.flowId) {
      const { currency } = input.onramp;
      const cryptoAddressId = state.onramp.cryptoAddressId;
      const flow = await orPark('creating the onramp', () =>
        act.ensureOnramp.executeWithOptions(changeOptions(`look up or create the ${currency} onramp`), [{ customerId, currency, cryptoAddressId }]),
      );
      state.onramp.flowId = flow.flowId;
      state.onramp.virtualAccount = (accountRecords[flow.virtualAccountId] as VirtualAccountRecord | undefined) ?? { id: flow.virtualAccountId, status: 'PENDING' };
    }
    if (input.offramp && state.offramp?.bankAccountId && !state.offramp.flowId) {
      stopIfEnded();
      const { currency, network } = input.offramp;
      const bankAccountId = state.offramp.bankAccountId;
      const flow = await orPark('creating the offramp', () =>
        act.ensureOfframp.executeWithOptions(changeOptions(`look up or create the ${currency} offramp`), [{ customerId, currency, network, bankAccountId }]),
      );
      state.offramp.flowId = flow.flowId;
      state.offramp.depositAddress = (accountRecords[flow.depositAddressId] as DepositAddressRecord | undefined) ?? { id: flow.depositAddressId, status: 'PENDING' };
    }
    return 'AWAITING_ACCOUNTS';
  }

  /**
   * Finds the service's records of the customer's exit accounts, registers those the input says the
   * journey registers (each looked up first), and waits, polling, for those the partner registers.
   */
  async function findExits(customerId: string): Promise<void> {
    const exits = new ExitAccounts(customerId, input.onramp, input.offramp, state, () => callPriority);
    // The first look is a poll like the later ones: a service failing for a while is waited out (up to
    // the deadline), not parked for an operator after three attempts. It leaves out the exits the
    // journey registers, which registerOwn looks up before adding (two list calls fewer a journey).
    const firstLook = patched(OWN_EXITS_LOOKED_UP_ONCE) ? exits.lookForPartners : exits.look;
    await pollTolerantly('the customer\'s exit accounts', firstLook);
    stopIfEnded();
    await orPark('registering the customer\'s exit accounts', () => exits.registerOwn());
    if (exits.missing().length === 0) return;
    show('SETTING_UP_RAMPS', `the partner to register ${exits.missing().join(' and ')} with the service`);
    await waitOrPark(`${exits.missing().join(' and ')} to be registered`, () => exits.missing().length === 0, exits.look, timings.accountsDeadlineSeconds);
  }

  async function awaitingAccounts(): Promise<JourneyStage> {
    const customerId = state.customer.id!;
    const virtualAccount = () => state.onramp?.virtualAccount;
    const depositAddress = () => state.offramp?.depositAddress;
    const decided = (record: { status: string } | undefined) => !record || isAccountApproved(record.status) || isAccountRejected(record.status);
    /** An undecided account a delivery says the service has decided: read it now (the details users pay into come only from that read). */
    const hinted = (record: { id: string; status: string } | undefined) => record !== undefined && !decided(record) && accountHints.has(record.id);
    show('AWAITING_ACCOUNTS', 'the service to approve the virtual account / deposit address');
    await waitOrPark(
      'the account approvals',
      () => decided(virtualAccount()) && decided(depositAddress()),
      async () => {
        // A look a hint asked for reads only the hinted accounts; a poll reads every undecided one.
        const onlyHinted = hinted(virtualAccount()) || hinted(depositAddress());
        const va = virtualAccount();
        if (va && !decided(va) && (!onlyHinted || hinted(va))) {
          accountHints.clear(va.id);
          applyAccount(await act.getVirtualAccount.executeWithOptions(readOptions('poll the virtual account'), [{ customerId, virtualAccountId: va.id }]));
        }
        const da = depositAddress();
        if (da && !decided(da) && (!onlyHinted || hinted(da))) {
          accountHints.clear(da.id);
          applyAccount(await act.getDepositAddress.executeWithOptions(readOptions('poll the deposit address'), [{ customerId, depositAddressId: da.id }]));
        }
      },
      timings.accountsDeadlineSeconds,
      () => hinted(virtualAccount()) || hinted(depositAddress()),
    );
    for (const [what, record] of [['virtual account', virtualAccount()], ['deposit address', depositAddress()]] as const) {
      if (record && isAccountRejected(record.status)) throw new ParkRequest(`the service rejected the ${what} ${record.id}`, 'Rejected');
    }

    const source = input.onramp?.audSourceAccount;
    const va = virtualAccount();
    if (source && va && state.onramp && !state.onramp.whitelisted) {
      show('AWAITING_ACCOUNTS', 'the service to whitelist the AUD source account');
      const listed = (entries: { bsbNumber: string; accountNumber: string; accountStatus?: string }[]) =>
        entries.some((entry) => entry.bsbNumber === source.bsbNumber && entry.accountNumber === source.accountNumber && (entry.accountStatus ?? 'active').toLowerCase() === 'active');
      const entries = await orPark('whitelisting the AUD source account', () =>
        act.ensureAudWhitelist.executeWithOptions(changeOptions('look up or add the AUD source account to the whitelist'), [
          { virtualAccountId: va.id, sourceAccount: source },
        ]),
      );
      let whitelisted = listed(entries);
      stopIfEnded();
      // No event announces the whitelist: the poll is the only way to learn of it.
      await waitOrPark('the AUD whitelist', () => whitelisted, async () => {
        whitelisted = listed(await act.getAudWhitelist.executeWithOptions(readOptions('poll the AUD whitelist'), [va.id]));
      }, timings.accountsDeadlineSeconds);
      state.onramp.whitelisted = true;
    }
    events.accountsReady(state);
    return 'ACTIVE';
  }

  /**
   * The customer's life: deposits run as their own workflows and report here. Nothing to ask the
   * service and no timer: deposits no event announced are found by the partner-wide reconciliation,
   * which starts their workflows.
   */
  async function active(): Promise<never> {
    show('ACTIVE', 'deposits (each runs as its own deposit workflow and reports here)');
    events.active();
    await condition(() => endRequested() || shouldContinueAsNew());
    stopIfEnded();
    throw new ContinueAsNewRequest();
  }

  // ---- the stage machine ---------------------------------------------------------------------

  const stages: Partial<Record<JourneyStage, () => Promise<JourneyStage>>> = {
    CREATING_CUSTOMER: creatingCustomer,
    AWAITING_KYC: awaitingKyc,
    SETTING_UP_RAMPS: settingUpRamps,
    AWAITING_ACCOUNTS: awaitingAccounts,
    ACTIVE: active,
  };

  // A run that continued as new resumes the stage it was in (never a parked one: parked runs wait
  // without timers, so their history stays short).
  let stage: JourneyStage = state.stage;
  try {
    for (;;) {
      try {
        const next = await stages[stage]!();
        if (next !== stage) stageDeadlineAt = undefined;
        stage = next;
      } catch (error) {
        if (!(error instanceof ParkRequest)) throw error;
        stage = await resumeParked(stage, error);
      }
    }
  } catch (error) {
    if (error instanceof ContinueAsNewRequest) {
      reports.close();
      await condition(allHandlersFinished);
      await events.outbox.drained();
      const next: CarriedJourney = {
        version: 2,
        state,
        appliedEventKeys: applied.carry(),
        accountRecords,
        ...(stageDeadlineAt !== undefined ? { stageDeadlineAt } : {}),
        partnerEvents: events.outbox.carry(),
        depositReportKeys: reports.carry(),
      };
      // Only the overrides go on: the next run resolves the rest from the code's defaults of its day.
      return await continueAsNew<typeof customerJourney>({ ...input, timings: timings.overrides }, next);
    }
    if (!(error instanceof JourneyEnded)) throw error;
    state.outcome = error.outcome.reason;
    reports.close();
    show(error.outcome.stage, `nothing: ${error.outcome.reason}`);
    events.ended(error.outcome.stage, error.outcome.reason);
    await condition(allHandlersFinished);
    await events.outbox.drained();
    return error.outcome;
  }

  /** Parks the stage until an operator decides; returns the stage to run next. */
  async function resumeParked(parkedStage: JourneyStage, request: ParkRequest): Promise<JourneyStage> {
    const decision = await desk.park(
      parkedStage,
      request,
      () => {
        show('NEEDS_ATTENTION', `an operator: ${request.reason}`);
        events.parked(parkedStage, request.reason);
      },
      endRequested,
    );
    if (decision.kind === 'cancel') throw new JourneyEnded({ stage: 'CLOSED', reason: decision.reason });
    stopIfEnded();
    events.resumed(parkedStage);
    stageDeadlineAt = undefined; // a retried wait gets a fresh deadline
    if (decision.kind !== 'retry') return parkedStage;
    lookBeforeWaiting = true;
    // A retry among thousands waits behind signups; a single retry is someone waiting.
    callPriority = decision.request.bulk ? PRIORITY.LOW : PRIORITY.HIGH;
    const corrected = decision.request.correctedInput;
    if (corrected) {
      input = { ...input, ...corrected };
      // Corrected ramps are looked for and set up afresh.
      if (corrected.onramp && state.onramp) state.onramp = { currency: corrected.onramp.currency };
      if (corrected.offramp && state.offramp) state.offramp = { currency: corrected.offramp.currency, network: corrected.offramp.network };
    }
    // New ramps are set up afresh, even when the journey was parked after setting up the old ones.
    const rampsCorrected = corrected?.onramp !== undefined || corrected?.offramp !== undefined;
    if (rampsCorrected && JOURNEY_STAGES.indexOf(parkedStage) > JOURNEY_STAGES.indexOf('SETTING_UP_RAMPS')) return 'SETTING_UP_RAMPS';
    return parkedStage;
  }
}
