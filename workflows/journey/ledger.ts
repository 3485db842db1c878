/**
 * What a customer journey knows and how it changes (workflows/journey/workflow.ts): its state, the account
 * records deliveries brought, the keys of the events it applied, the deliveries' hints waiting for a
 * look, the reason it was told to end, and the deadline of the stage in progress. Events are applied at
 * most once and move state only forward; the handlers that feed the ledger are registered here too.
 */
import { setCurrentDetails, setHandler } from '@temporalio/workflow';
import { AppliedKeys } from '../common/applied-keys';
import { workflowNow } from '../common/clock';
import { applyDepositProgress, emptyDepositBoard } from './board';
import { DepositReportIntake } from './report-intake';
import { indexStage } from '../common/indexing';
import { MAX_ACCOUNT_RECORDS, type CarriedJourney } from './carry';
import type { JourneyEvents } from './events';
import type { JourneyInput } from '../common/journey-input';
import {
  closeCustomerUpdate,
  customerEventSignal,
  depositAddressEventSignal,
  depositProgressSignal,
  journeyStateQuery,
  virtualAccountEventSignal,
  type Attention,
  type DepositProgress,
  type DepositSummary,
  type EndRequest,
  type JourneyStage,
  type JourneyState,
} from '../common/messages';
import type { OperatorDesk } from '../common/operator';
import type { CustomerRecord, DepositAddressRecord, VirtualAccountRecord } from '../common/records';
import { RampCustomerId, RampExternalId } from '../../observability/search-attributes';
import { registerSignup } from './signup';
import { stageEntered } from '../common/stage-metrics';
import { advancesAccount, advancesCustomer } from '../common/status-order';
import { isHint, PendingHints } from '../common/trust';

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

  // ---- what the UI and the search attributes show ----------------------------------------------

  show(stage: JourneyStage, waitingFor: string, attention: Attention | undefined): void {
    stageEntered(stage);
    this.state.stage = stage;
    this.state.waitingFor = waitingFor;
    this.state.attention = attention;
    // One upsert per change of stage, carrying what else the journey learned since the last one (its
    // externalId when its starter did not index it, the service's customer id once known).
    indexStage(stage, [
      { key: RampExternalId, value: this.state.externalId },
      ...(this.state.customer.id ? [{ key: RampCustomerId, value: this.state.customer.id }] : []),
    ]);
    setCurrentDetails(`**${stage}**: ${waitingFor}`);
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

  /** The deadline carried through continue-as-new, if a wait of the stage set one. */
  get carriedDeadline(): number | undefined {
    return this.stageDeadlineAt;
  }
}

/**
 * Registers the journey's deliveries, deposit reports, query, signup and close on `ledger`; returns
 * the deposit-report intake, which is closed when the run hands over.
 */
export function registerJourneyHandlers(
  ledger: JourneyLedger,
  desk: OperatorDesk,
  events: JourneyEvents,
  carriedReportKeys: readonly string[] | undefined,
): DepositReportIntake {
  const { state, applied } = ledger;
  // Hints are not de-duplicated by key: each costs at most one read, and a forged delivery that came
  // first must not use up the key of the genuine one.
  setHandler(customerEventSignal, (event) =>
    isHint(event)
      ? ledger.noteCustomerHint(event.record)
      : applied.applyOnce(event.key, () => ledger.applyCustomer(event.record)),
  );
  setHandler(virtualAccountEventSignal, (event) =>
    isHint(event)
      ? ledger.accountHints.note(event.record)
      : applied.applyOnce(event.key, () => ledger.applyAccount(event.record)),
  );
  setHandler(depositAddressEventSignal, (event) =>
    isHint(event)
      ? ledger.accountHints.note(event.record)
      : applied.applyOnce(event.key, () => ledger.applyAccount(event.record)),
  );
  // Deposit workflows of the previous code sent the bare summary.
  const applyProgress = (progress: DepositProgress): void => {
    if (applyDepositProgress(state.deposits, progress)) events.depositProgress(progress);
  };
  setHandler(depositProgressSignal, (report: DepositProgress | DepositSummary) =>
    applyProgress('summary' in report ? report : { summary: report }),
  );
  // Deposits of this code offer their reports by update, which the journey can refuse while it hands
  // over (workflows/common/deposit-reports.ts): a storm of reports waits with its senders, not in this history.
  const reports = new DepositReportIntake(applyProgress, carriedReportKeys);
  setHandler(journeyStateQuery, () => ({ ...state, attention: desk.attention }));
  registerSignup(state);
  setHandler(
    closeCustomerUpdate,
    (request) => {
      ledger.requestEnd(request.reason ?? 'closed by an operator');
      return { closed: true as const };
    },
    {
      validator: (_request: EndRequest) => {
        if (state.stage === 'CLOSED' || state.stage === 'REJECTED')
          throw new Error(`the journey has already ended (${state.stage})`);
      },
    },
  );
  return reports;
}
