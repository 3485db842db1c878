/**
 * What one run of a deposit (workflows/deposit/workflow.ts) works with: its timings, whether it follows the
 * trust rule, what it holds of the service's records (the ledger), the journey it reports to, its
 * step's deadline, its operator desk and the hints deliveries left for it. The steps
 * (workflows/deposit/steps.ts), its showing (workflows/deposit/showing.ts) and its waits
 * (workflows/deposit/waits.ts) take it; the course holds no logic of its own.
 */
import { readOptions } from '../common/activity-options';
import { AppliedKeys } from '../common/applied-keys';
import { depositActivities as act } from './service-calls';
import { takeUpCarried, type CarriedDeposit } from './carry';
import { DepositHints } from './hints';
import type { DepositLifecycleInput } from '../common/deposit-input';
import { DepositJourneyLink } from './journey-link';
import { DepositLedger } from './ledger';
import { JourneyReporter } from './report';
import { DepositStepClock } from './step-clock';
import type { DepositState } from '../common/messages';
import { OperatorDesk, type CarriedParking } from '../common/operator';
import { depositTimings, type DepositTimings } from '../common/timings';
import { DEPOSIT_KIND_KEPT, PAYLOADS_ARE_HINTS, takesPatch } from '../common/patches';

export class DepositCourse {
  readonly depositId: string;
  /** Resolved where each is used, from the starter's overrides and the code's defaults (workflows/common/timings.ts). */
  readonly timings: Readonly<DepositTimings>;
  /**
   * Set when this run follows the trust rule (PAYLOADS_ARE_HINTS): it reads its own record, holds only
   * records the service gave, and takes a refund as a reversal. Decided before any handler can run (a
   * signal-with-start's signal may be delivered as soon as its handler is set); runs recorded before
   * the rule replay without it.
   */
  readonly verifiesPayloads: boolean;
  /** What the deposit holds of the service's records, and where they came from (workflows/deposit/ledger.ts). */
  readonly ledger: DepositLedger;
  readonly state: DepositState;
  /** The journey it reports to (workflows/deposit/journey-link.ts). */
  readonly link: DepositJourneyLink;
  /** Its current step's deadline. */
  readonly clock: DepositStepClock;
  /** The event keys applied, so that each event is applied at most once. */
  readonly applied: AppliedKeys;
  /** Installs the operator's `retry` and `cancel` updates. */
  readonly desk: OperatorDesk;
  readonly reporter: JourneyReporter;
  /** Reads the deposit's record from the service and takes it: a poll, and the look a deposit hint asks for. */
  readonly pollDeposit: () => Promise<void>;
  /** Deliveries' claims about this deposit, its trade and its payment, waiting for a look. */
  readonly hints: DepositHints;
  /**
   * The parking the previous run handed on, until this run's park takes it up (or its step finds
   * the fact came true meanwhile): while set, the step runs again only to rebuild its park
   * (workflows/deposit/resume.ts).
   */
  carriedParking: CarriedParking | undefined;

  /**
   * Made in this order, before the deposit's handlers are set (workflows/deposit/handlers.ts); a run
   * that continues another takes up what it carried (workflows/deposit/carry.ts).
   */
  constructor(input: DepositLifecycleInput, carried?: CarriedDeposit) {
    const { depositId } = input;
    this.depositId = depositId;
    this.timings = depositTimings(input.timings);
    this.verifiesPayloads = carried?.verifiesPayloads ?? takesPatch(PAYLOADS_ARE_HINTS);
    const ledger = new DepositLedger(depositId, this.verifiesPayloads, input.deposit, () =>
      takesPatch(DEPOSIT_KIND_KEPT),
    );
    this.ledger = ledger;
    this.state = ledger.state;
    this.link = new DepositJourneyLink();
    if (carried) takeUpCarried(carried, ledger, this.link);
    this.clock = new DepositStepClock(carried?.stepDeadlineAt);
    this.applied = new AppliedKeys(carried?.appliedEventKeys);
    this.carriedParking = carried?.parking;
    this.desk = new OperatorDesk(undefined, carried?.parking?.attention);
    this.reporter = new JourneyReporter(depositId, carried?.reports);
    this.pollDeposit = async () =>
      ledger.applyDeposit(await act.getDeposit.executeWithOptions(readOptions('poll the deposit'), [depositId]));
    this.hints = new DepositHints(depositId, ledger, this.pollDeposit, carried?.hints);
  }
}
