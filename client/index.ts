/** The rampflow client library: what a partner backend or an operator's tooling imports. */
export { createRampflowClient, createRampflowClientFromEnv, type RampflowClientOptions } from './connect';
export { RampflowClient } from './rampflow-client';
// The client's parts, reached through its members (client.journeys, client.deposits, ...), never made alone.
export type { AttachmentOperations } from './attachments';
export type { BulkActions } from './bulk-actions';
export type { DepositOperations } from './deposits';
export type { EventOperations } from './events';
export type { JourneyOperations } from './journeys';
export { SIGNUP_GRACE_MS, type JourneyHandle, type JourneyOutcome, type SignUp, type SignUpOptions } from './journeys';
export type { DepositHandle, DepositOutcome } from './deposits';
export type { DepositBulkFilter, HandOverTarget, JourneyBulkFilter, PayoutBulkFilter } from './bulk-actions';
export type { EventReport } from './events';
export type { StuckWorkflowReset } from './workflow-reset';
export type { ParkCode, RampEventResult } from '../workflows/ramp-event/events';
export {
  DEFAULT_BULK_CONCURRENCY,
  type BulkOptions,
  type BulkProgress,
  type BulkReport,
  type BulkTarget,
} from './bulk';
export { PayoutClient, parsePayoutRequest, type PayoutHandle, type PayoutRequest } from './payouts';
export {
  PAYOUT_STAGES,
  type PayoutInput,
  type PayoutStage,
  type PayoutState,
  type PayoutTimings,
} from '../workflows/payout/messages';
export {
  RampflowInputError,
  RampflowNotFoundError,
  RampflowUpdateRefusedError,
  RampflowWorkflowEndedError,
} from './errors';
export {
  END_STATUSES,
  endFieldLines,
  endJson,
  endLine,
  isEndStatus,
  readWorkflowEnd,
  workflowEndOf,
  type EndedRun,
  type EndFailure,
  type EndStatus,
  type WorkflowEnd,
  type WorkflowEndFields,
} from './workflow-end';
export type { CorrectedInput } from './input-validation';
export { LocalFolderAttachmentStore, type AttachmentFile, type AttachmentStore } from '../attachments';
// RAMPFLOW_PAYLOAD_KEYS's format, for a partner backend that keeps its keys elsewhere than the environment.
export { PayloadKeysSchema, type PayloadKey } from '../config/env';
export {
  DEFAULT_LIST_LIMIT,
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  type DepositFilter,
  type DepositListItem,
  type DepositPage,
  type DepositPageFilter,
  type EventFilter,
  type EventListing,
  type JourneyFilter,
  type JourneyListing,
  type PageRequest,
  type PayoutFilter,
  type PayoutListing,
} from './visibility';
export type { JourneyRequest } from '../workflows/schemas';
export {
  DEPOSIT_STAGES,
  JOURNEY_STAGES,
  type AttachmentReference,
  type Attention,
  type DepositStage,
  type DepositState,
  type DepositSummary,
  type JourneyStage,
  type JourneyDeposits,
  type JourneyState,
  type RetryRequest,
  type SignupResult,
} from '../workflows/common/messages';
export type { DepositAddressRecord, VirtualAccountRecord } from '../workflows/common/records';
