/**
 * What a journey hands to its next run when it continues as new (`JourneyLedger.carry`), with a
 * version number, and how the next run takes it up (`takeUpCarriedJourney`): a run of new code must
 * accept what a run of the previous code carried (continue-as-new is where a long-lived journey moves
 * to new code, and where a 0.x journey hands over to 1.0). Every field is bounded whatever the
 * customer's history.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { JourneyState } from '../common/messages';
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
  /** Set when the run was parked (added within version 2): the next run is parked at once with it. */
  parking?: CarriedParking;
}

/** Accounts seen in events and kept for later: the customer's own, so a handful; capped all the same. */
export const MAX_ACCOUNT_RECORDS = 16;

/**
 * Deposit report keys remembered (workflows/journey/run.ts, the deposit reports): two offers' worth (a
 * sender has at most one offer of MAX_REPORTS_PER_OFFER in flight per journey), so an offer repeated
 * after a lost answer is recognised. Carried at about 50 bytes a key: this window is most of what the
 * journey carries.
 */
export const REPORT_KEYS_REMEMBERED = 200;

/**
 * Takes up what the last run carried. Only version 2 crosses into 1.0: the last 0.x release (v0.8.0)
 * hands its journeys over carrying it (docs/deploying/versioning.md, "Major versions"), and its code
 * always carried the whole board. An older carry never reaches 1.0 code, so one that does is refused,
 * not guessed at: the run fails with CarriedJourneyUnsupported, for an operator.
 */
export function takeUpCarriedJourney(carried: CarriedJourney): CarriedJourney {
  const { version } = carried as { version?: unknown };
  if (version !== 2) throw CarriedJourneyUnsupported.version(version);
  return carried;
}

/** A continue-as-new argument of a version this code does not take up: not retryable, as retrying reads the same one. */
export const CarriedJourneyUnsupported = {
  version: (version: unknown) =>
    ApplicationFailure.nonRetryable(
      `the last run carried a journey of version ${typeof version === 'number' ? version : 'none'}; 1.0 takes up version 2 only (carried by v0.8.0's hand-over)`,
      'CarriedJourneyUnsupported',
    ),
};
