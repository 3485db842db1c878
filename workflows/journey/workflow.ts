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
import { allHandlersFinished, condition } from '@temporalio/workflow';
import type { RampActivities } from '../../activities';
import { changeOptions, readOptions } from '../common/activity-options';
import { serviceActivities } from '../common/service-activities';
import { ExitAccounts } from './exits';
import { upgradeCarriedJourney, type AnyCarriedJourney } from './carry';
import {
  ContinueAsNewRequest,
  continueJourneyAsNew,
  JourneyEnded,
  recordEnd,
  stopIfEnded,
  type JourneyOutcome,
} from './ending';
import { JourneyEvents } from './events';
import type { JourneyInput } from '../common/journey-input';
import { JourneyLedger, registerJourneyHandlers } from './ledger';
import { JourneyCourse, resumeParked, runCarriedParking } from './resume';
import { JourneyWaits } from './waits';
import type { JourneyStage } from '../common/messages';
import { OperatorDesk, ParkedHistoryFull, type CarriedParking } from '../common/operator';
import { isCustomerApproved } from '../common/records';
import { orPark, ParkRequest } from '../common/service-failures';
import { isAccountApproved, isAccountRejected } from '../common/status-order';
import { validatedStartInput } from '../common/start-input';
import { journeyTimings } from '../common/timings';
import { pollTolerantly } from '../common/waiting';
import { OWN_EXITS_LOOKED_UP_ONCE, takesPatch } from '../common/patches';

export type { JourneyOutcome } from './ending';

export async function customerJourney(
  initialInput: JourneyInput,
  carriedFromLastRun?: AnyCarriedJourney,
): Promise<JourneyOutcome> {
  // Checked on the first run only: a run that continued as new carries input this code already checked.
  const course = new JourneyCourse(
    carriedFromLastRun ? initialInput : validatedStartInput('customerJourney', initialInput),
  );
  // Every call passes its own options (reads and changes retry differently) and a summary for the UI.
  const act = serviceActivities<RampActivities>(changeOptions('a call to the ramp service'), () => course.callPriority);
  // Each timing is resolved where it is used, from the input's overrides and the code's defaults, so a
  // retune reaches a running journey (workflows/common/timings.ts; the earlier code's values replay as they were).
  const timings = journeyTimings(course.input.timings, !carriedFromLastRun);
  const carried = carriedFromLastRun ? upgradeCarriedJourney(carriedFromLastRun) : undefined;
  const ledger = new JourneyLedger(course.input, carried);
  const { state } = ledger;
  // Parked from the start when the last run handed its parking on: an operator's decision is taken at once.
  course.carriedParking = carried?.parking;
  const desk = new OperatorDesk(undefined, carried?.parking?.attention);
  /** What the partner's product hears of (workflows/journey/events.ts): facts the journey established. */
  const events = new JourneyEvents(state.externalId, carried?.partnerEvents);
  const reports = registerJourneyHandlers(ledger, desk, events, carried?.depositReportKeys);
  /** What the UI and the search attributes show (workflows/journey/ledger.ts). */
  // A stage run again to rebuild a carried park shows nothing: the journey stays shown as parked.
  const show = (stage: JourneyStage, waitingFor: string): void => {
    if (!course.carriedParking) ledger.show(stage, waitingFor, desk.attention);
  };
  /** Every wait has an event, a poll and a deadline; it parks at the deadline (workflows/journey/waits.ts). */
  const { waitOrPark, shouldContinueAsNew } = new JourneyWaits(timings, ledger, course);
  const parkedJourney = { desk, ledger, events, course, show, shouldContinueAsNew };

  // ---- the stages --------------------------------------------------------------------------------

  async function creatingCustomer(): Promise<JourneyStage> {
    show('CREATING_CUSTOMER', 'the service to create the customer (looked up by externalId first)');
    stopIfEnded(ledger);
    const customer = await orPark('creating the customer', () =>
      act.ensureCustomer.executeWithOptions(changeOptions('look up or create the customer'), [course.input.customer]),
    );
    ledger.rememberCustomerId(customer.id);
    ledger.applyCustomer(customer);
    return 'AWAITING_KYC';
  }

  async function awaitingKyc(): Promise<JourneyStage> {
    const customerId = state.customer.id!;
    show(
      'AWAITING_KYC',
      `the customer to pass KYC${state.customer.kycLink ? ` at ${state.customer.kycLink}` : ''} (CUSTOMER_APPROVED)`,
    );
    const decided = () =>
      isCustomerApproved(state.customer.status ?? '') ||
      state.customer.status === 'REJECTED' ||
      state.customer.status === 'DELETED';
    if (!decided()) events.kycRequired(state);
    await waitOrPark(
      'the KYC decision',
      decided,
      async () => {
        ledger.customerHints.clear(customerId);
        ledger.applyCustomer(
          await act.getCustomer.executeWithOptions(readOptions("poll the customer's KYC status"), [customerId]),
        );
        // A link the service gave only later than the customer's creation.
        if (!decided()) events.kycRequired(state);
      },
      timings.kycDeadlineSeconds,
      { hinted: ledger.customerHinted },
    );
    if (state.customer.status === 'REJECTED')
      throw new JourneyEnded({ stage: 'REJECTED', reason: "the service rejected the customer's KYC" });
    if (isCustomerApproved(state.customer.status ?? '')) events.approved();
    return 'SETTING_UP_RAMPS';
  }

  async function settingUpRamps(): Promise<JourneyStage> {
    const customerId = state.customer.id!;
    await findExits(customerId);
    show('SETTING_UP_RAMPS', 'the service to create the autoramp flows (each looked up first)');
    stopIfEnded(ledger);
    if (course.input.onramp && state.onramp?.cryptoAddressId && !state.onramp.flowId) {
      const { currency } = course.input.onramp;
      const cryptoAddressId = state.onramp.cryptoAddressId;
      const flow = await orPark('creating the onramp', () =>
        act.ensureOnramp.executeWithOptions(changeOptions(`look up or create the ${currency} onramp`), [
          { customerId, currency, cryptoAddressId },
        ]),
      );
      state.onramp.flowId = flow.flowId;
      state.onramp.virtualAccount = ledger.accountRecords[flow.virtualAccountId] ?? {
        id: flow.virtualAccountId,
        status: 'PENDING',
      };
    }
    if (course.input.offramp && state.offramp?.bankAccountId && !state.offramp.flowId) {
      stopIfEnded(ledger);
      const { currency, network } = course.input.offramp;
      const bankAccountId = state.offramp.bankAccountId;
      const flow = await orPark('creating the offramp', () =>
        act.ensureOfframp.executeWithOptions(changeOptions(`look up or create the ${currency} offramp`), [
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
  async function findExits(customerId: string): Promise<void> {
    const exits = new ExitAccounts(
      customerId,
      course.input.onramp,
      course.input.offramp,
      state,
      () => course.callPriority,
    );
    // The first look is a poll like the later ones: a service failing for a while is waited out (up to
    // the deadline), not parked for an operator after three attempts. It leaves out the exits the
    // journey registers, which registerOwn looks up before adding (two list calls fewer a journey).
    const firstLook = takesPatch(OWN_EXITS_LOOKED_UP_ONCE) ? exits.lookForPartners : exits.look;
    await pollTolerantly("the customer's exit accounts", firstLook);
    stopIfEnded(ledger);
    await orPark("registering the customer's exit accounts", () => exits.registerOwn());
    if (exits.missing().length === 0) return;
    show('SETTING_UP_RAMPS', `the partner to register ${exits.missing().join(' and ')} with the service`);
    // No event announces the partner's registrations: the wait polls early.
    await waitOrPark(
      `the partner to register ${exits.missing().join(' and ')} with the service`,
      () => exits.missing().length === 0,
      exits.look,
      timings.accountsDeadlineSeconds,
      { unannounced: true },
    );
  }

  async function awaitingAccounts(): Promise<JourneyStage> {
    const customerId = state.customer.id!;
    const virtualAccount = () => state.onramp?.virtualAccount;
    const depositAddress = () => state.offramp?.depositAddress;
    const decided = (record: { status: string } | undefined) =>
      !record || isAccountApproved(record.status) || isAccountRejected(record.status);
    /** An undecided account a delivery says the service has decided: read it now (the details users pay into come only from that read). */
    const hinted = (record: { id: string; status: string } | undefined) =>
      record !== undefined && !decided(record) && ledger.accountHints.has(record.id);
    show('AWAITING_ACCOUNTS', 'the service to approve the virtual account / deposit address');
    await waitOrPark(
      'the account approvals',
      () => decided(virtualAccount()) && decided(depositAddress()),
      async () => {
        // A look a hint asked for reads only the hinted accounts; a poll reads every undecided one.
        const onlyHinted = hinted(virtualAccount()) || hinted(depositAddress());
        const va = virtualAccount();
        if (va && !decided(va) && (!onlyHinted || hinted(va))) {
          ledger.accountHints.clear(va.id);
          ledger.applyAccount(
            await act.getVirtualAccount.executeWithOptions(readOptions('poll the virtual account'), [
              { customerId, virtualAccountId: va.id },
            ]),
          );
        }
        const da = depositAddress();
        if (da && !decided(da) && (!onlyHinted || hinted(da))) {
          ledger.accountHints.clear(da.id);
          ledger.applyAccount(
            await act.getDepositAddress.executeWithOptions(readOptions('poll the deposit address'), [
              { customerId, depositAddressId: da.id },
            ]),
          );
        }
      },
      timings.accountsDeadlineSeconds,
      { hinted: () => hinted(virtualAccount()) || hinted(depositAddress()) },
    );
    for (const [what, record] of [
      ['virtual account', virtualAccount()],
      ['deposit address', depositAddress()],
    ] as const) {
      if (record && isAccountRejected(record.status))
        throw new ParkRequest(`the service rejected the ${what} ${record.id}`, 'Rejected');
    }

    const source = course.input.onramp?.audSourceAccount;
    const va = virtualAccount();
    if (source && va && state.onramp && !state.onramp.whitelisted) {
      show('AWAITING_ACCOUNTS', 'the service to whitelist the AUD source account');
      const listed = (entries: { bsbNumber: string; accountNumber: string; accountStatus?: string }[]) =>
        entries.some(
          (entry) =>
            entry.bsbNumber === source.bsbNumber &&
            entry.accountNumber === source.accountNumber &&
            (entry.accountStatus ?? 'active').toLowerCase() === 'active',
        );
      const entries = await orPark('whitelisting the AUD source account', () =>
        act.ensureAudWhitelist.executeWithOptions(
          changeOptions('look up or add the AUD source account to the whitelist'),
          [{ virtualAccountId: va.id, sourceAccount: source }],
        ),
      );
      let whitelisted = listed(entries);
      stopIfEnded(ledger);
      // No event announces the whitelist, which the interface promises "with a short delay" after
      // approval: the poll is the only way to learn of it, so it polls early.
      await waitOrPark(
        'the AUD whitelist',
        () => whitelisted,
        async () => {
          whitelisted = listed(
            await act.getAudWhitelist.executeWithOptions(readOptions('poll the AUD whitelist'), [va.id]),
          );
        },
        timings.accountsDeadlineSeconds,
        { unannounced: true },
      );
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
    await condition(() => ledger.endRequested() || shouldContinueAsNew());
    stopIfEnded(ledger);
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

  // A run that continued as new resumes the stage it was in; a parked one, the stage it parked.
  let stage: JourneyStage = (course.carriedParking?.attention.stage as JourneyStage | undefined) ?? state.stage;
  let parking: CarriedParking | undefined;
  try {
    for (;;) {
      let parked: ParkRequest;
      try {
        const run = stages[stage]!;
        const next = await (course.carriedParking ? runCarriedParking(run, parkedJourney) : run());
        if (next !== stage) ledger.forgetDeadline();
        stage = next;
        continue;
      } catch (error) {
        if (!(error instanceof ParkRequest)) throw error;
        parked = error;
      }
      try {
        stage = await resumeParked(stage, parked, parkedJourney);
      } catch (error) {
        if (!(error instanceof ParkedHistoryFull)) throw error;
        parking = error.parking;
        throw new ContinueAsNewRequest();
      }
    }
  } catch (error) {
    if (error instanceof ContinueAsNewRequest) {
      reports.close();
      await condition(allHandlersFinished);
      await events.outbox.drained();
      return await continueJourneyAsNew(course.input, timings, ledger, events, reports, parking);
    }
    if (!(error instanceof JourneyEnded)) throw error;
    recordEnd(error.outcome, ledger, show, events, reports);
    await condition(allHandlersFinished);
    await events.outbox.drained();
    return error.outcome;
  }
}
