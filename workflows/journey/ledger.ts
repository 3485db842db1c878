/**
 * What a customer journey knows and the only ways it changes (plain data, no Temporal call): its
 * state, the account records deliveries brought, the keys of the events it applied, the deliveries'
 * hints waiting for a look, the reason it was told to end, and the deadline of the stage in progress.
 * Events are applied at most once and move state only forward. The run (workflows/journey/run.ts)
 * feeds it from its handlers and steps, and shows and indexes what it holds.
 */
import {
  advancesAccount,
  advancesCustomer,
  AppliedKeys,
  type CustomerRecord,
  type DepositAddressRecord,
  type VirtualAccountRecord,
} from '../common/records';
import { workflowNow } from '../common/timings';
import { emptyDepositBoard } from './board';
import { type CarriedJourney, MAX_ACCOUNT_RECORDS } from './carry';
import type { JourneyInput } from '../schemas';
import type { Attention, JourneyStage, JourneyState } from '../common/messages';
import type { CarriedParking } from '../common/parking';
import type { CarriedOutbox } from '../partner-events/outbox';
import { PendingHints } from '../common/trust';

export class JourneyLedger {
  readonly state: JourneyState;
  readonly applied: AppliedKeys;
  readonly accountRecords: Record<string, VirtualAccountRecord | DepositAddressRecord>;
  private stageDeadlineAt: number | undefined;
  private closeReason: string | undefined;
  /**
   * What deliveries claimed about the customer and its accounts, waiting for a look (workflows/common/trust.ts):
   * a payload never becomes the journey's state; the service's record, read when a hint claims news,
   * does. Not carried through continue-as-new: a hint lost there is found by the next poll.
   */
  readonly customerHints = new PendingHints(2);
  readonly accountHints = new PendingHints(MAX_ACCOUNT_RECORDS);

  constructor(input: JourneyInput, carried: CarriedJourney | undefined) {
    this.state = carried?.state ?? {
      externalId: input.customer.externalId,
      stage: 'CREATING_CUSTOMER',
      waitingFor: 'the customer to be created',
      customer: {},
      ...(input.onramp ? { onramp: { currency: input.onramp.currency } } : {}),
      ...(input.offramp ? { offramp: { currency: input.offramp.currency, network: input.offramp.network } } : {}),
      deposits: emptyDepositBoard(),
    };
    this.applied = new AppliedKeys(carried?.appliedEventKeys);
    this.accountRecords = { ...(carried?.accountRecords ?? {}) };
    this.stageDeadlineAt = carried?.stageDeadlineAt;
  }

  /** The stage and what it waits for, as the UI and the `journeyState` query show them. */
  setStage(stage: JourneyStage, waitingFor: string, attention: Attention | undefined): void {
    this.state.stage = stage;
    this.state.waitingFor = waitingFor;
    this.state.attention = attention;
  }

  /** Indexed with the next stage shown. */
  rememberCustomerId(id: string): void {
    this.state.customer.id = id;
  }

  // ---- events: applied at most once, moving state only forward ----------------------------------

  applyCustomer(record: CustomerRecord): void {
    const { state } = this;
    if (state.customer.id && record.id !== state.customer.id) return;
    if (!advancesCustomer(state.customer.status, record.status)) return;
    this.rememberCustomerId(record.id);
    state.customer.status = record.status;
    if (record.kycLink) state.customer.kycLink = record.kycLink;
    if (record.status === 'DELETED') this.requestEnd('the service deleted the customer');
  }

  applyAccount(record: VirtualAccountRecord | DepositAddressRecord): void {
    const { state, accountRecords } = this;
    const known = accountRecords[record.id];
    if (known && !advancesAccount(known.status, record.status)) return;
    delete accountRecords[record.id]; // re-inserted last: the oldest record is the one dropped at the cap
    accountRecords[record.id] = record;
    for (const id of Object.keys(accountRecords).slice(0, -MAX_ACCOUNT_RECORDS)) delete accountRecords[id];
    if (state.onramp?.virtualAccount?.id === record.id) state.onramp.virtualAccount = record;
    if (state.offramp?.depositAddress?.id === record.id) state.offramp.depositAddress = record;
  }

  /** A hint about another customer than the journey's own is dropped: it can only be a forgery or a misroute. */
  noteCustomerHint(record: CustomerRecord): void {
    if (this.state.customer.id !== undefined && record.id !== this.state.customer.id) return;
    this.customerHints.note(record);
  }

  /** Whether a hint claims the customer's KYC was decided beyond what the service last told the journey. */
  readonly customerHinted = (): boolean => {
    const claim = this.customerHints.claimFor(this.state.customer.id);
    return (
      claim !== undefined && advancesCustomer(this.state.customer.status, claim) && claim !== this.state.customer.status
    );
  };

  // ---- the end asked for, and the stage's deadline ------------------------------------------------

  /** The first reason given wins: a close, or the service deleting the customer. */
  requestEnd(reason: string): void {
    this.closeReason ??= reason;
  }

  readonly endRequested = (): boolean => this.closeReason !== undefined;

  /** Why the journey was told to end, once it was (see `endRequested`). */
  get endReason(): string | undefined {
    return this.closeReason;
  }

  /** The stage's deadline, set by its first wait: a wait resumed (or a new run) does not extend it. */
  deadline(seconds: number): number {
    this.stageDeadlineAt ??= workflowNow() + seconds * 1000;
    return this.stageDeadlineAt;
  }

  /** The next wait gets a fresh deadline. */
  forgetDeadline(): void {
    this.stageDeadlineAt = undefined;
  }

  // ---- what the next run takes up ------------------------------------------------------------------

  /**
   * What continue-as-new hands on (workflows/journey/carry.ts): this ledger, the deadline if a wait of
   * the stage set one, where the partner events stand, the deposit reports' keys, and the parking
   * when the run was parked.
   */
  carry(
    partnerEvents: CarriedOutbox,
    depositReportKeys: string[],
    parking: CarriedParking | undefined,
  ): CarriedJourney {
    const { stageDeadlineAt } = this;
    return {
      version: 2,
      state: this.state,
      appliedEventKeys: this.applied.carry(),
      accountRecords: this.accountRecords,
      ...(stageDeadlineAt !== undefined ? { stageDeadlineAt } : {}),
      partnerEvents,
      depositReportKeys,
      ...(parking ? { parking } : {}),
    };
  }
}
