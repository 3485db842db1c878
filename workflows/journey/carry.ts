/**
 * What a journey hands to its next run when it continues as new (`JourneyLedger.carry`), with a
 * version number, and how the next run takes it up (`upgradeCarriedJourney`): a run of new code must
 * accept what a run of the previous code carried (continue-as-new is where a long-lived journey moves
 * to new code). Every field is bounded whatever the customer's history.
 */
import { applyDepositProgress, emptyDepositBoard } from './board';
import type { DepositSummary, JourneyDeposits, JourneyState } from '../common/messages';
import type { CarriedParking } from '../common/parking';
import type { CarriedOutbox } from '../partner-events/outbox';
import type { DepositAddressRecord, VirtualAccountRecord } from '../common/records';

export interface CarriedJourney {
  version: 2;
  state: JourneyState;
  /** The last applied event keys (workflows/common/records.ts). */
  appliedEventKeys: string[];
  /** Deadline of the stage in progress (absolute workflow time), so a new run does not extend it. */
  stageDeadlineAt?: number;
  /** Account records seen in events before the journey learned their ids (the customer's few accounts). */
  accountRecords: Record<string, VirtualAccountRecord | DepositAddressRecord>;
  /** Where the customer's partner events stand (added within version 2: absent before partner events). */
  partnerEvents?: CarriedOutbox;
  /** Keys of the last deposit reports taken by update (workflows/journey/run.ts; added within version 2). */
  depositReportKeys?: string[];
  /** Set when the run was parked (PARKED_CONTINUES_AS_NEW; added within version 2): the next run is parked at once with it. */
  parking?: CarriedParking;
}

/**
 * Version 1 (unversioned): the journey listed every deposit and queued deposit events for the deposit
 * workflows it started itself. Deposits now start on their own (signal-with-start), so queued events
 * are dropped: reconciliation starts any deposit workflow that is missing.
 */
interface CarriedJourneyV1 {
  version?: undefined;
  state: Omit<JourneyState, 'deposits'> & { deposits: DepositSummary[] };
  appliedEventKeys: string[];
  pendingDepositEvents?: unknown[];
  stageDeadlineAt?: number;
  accountRecords?: Record<string, VirtualAccountRecord | DepositAddressRecord>;
}

/**
 * Version 2 as carried before reversals (issue 23): the board had no `reversedTotals` and no
 * `reversedDepositIds`. They were added within version 2, since a carry without them needs only
 * their empty values, which the upgrade supplies.
 */
type BoardBeforeReversals = Omit<JourneyDeposits, 'reversedTotals' | 'reversedDepositIds'> &
  Partial<Pick<JourneyDeposits, 'reversedTotals' | 'reversedDepositIds'>>;
interface CarriedJourneyV2BeforeReversals extends Omit<CarriedJourney, 'state'> {
  state: Omit<JourneyState, 'deposits'> & { deposits: BoardBeforeReversals };
}

export type AnyCarriedJourney = CarriedJourney | CarriedJourneyV2BeforeReversals | CarriedJourneyV1;

/** Accounts seen in events and kept for later: the customer's own, so a handful; capped all the same. */
export const MAX_ACCOUNT_RECORDS = 16;

/**
 * Deposit report keys remembered (workflows/journey/run.ts, the deposit reports): two offers' worth (a
 * sender has at most one offer of MAX_REPORTS_PER_OFFER in flight per journey), so an offer repeated
 * after a lost answer is recognised. Carried at about 50 bytes a key: this window is most of what the
 * journey carries.
 */
export const REPORT_KEYS_REMEMBERED = 200;

export function upgradeCarriedJourney(carried: AnyCarriedJourney): CarriedJourney {
  if (carried.version === 2)
    return { ...carried, state: { ...carried.state, deposits: { ...emptyDepositBoard(), ...carried.state.deposits } } };
  const deposits = emptyDepositBoard();
  for (const summary of carried.state.deposits) applyDepositProgress(deposits, { summary });
  return {
    version: 2,
    state: { ...carried.state, deposits },
    appliedEventKeys: carried.appliedEventKeys,
    accountRecords: carried.accountRecords ?? {},
    ...(carried.stageDeadlineAt !== undefined ? { stageDeadlineAt: carried.stageDeadlineAt } : {}),
  };
}
