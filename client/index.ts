/** The rampflow client library: what a partner backend or an operator's tooling imports. */
export { createRampflowClient, createRampflowClientFromEnv, type RampflowClientOptions } from './connect';
export { RampflowClient, type DepositHandle, type DepositOutcome, type EventReport, type JourneyHandle, type JourneyOutcome } from './rampflow-client';
export { RampflowInputError, RampflowNotFoundError, RampflowUpdateRefusedError } from './errors';
export type { CorrectedInput } from './input-validation';
export { LocalFolderAttachmentStore, type AttachmentFile, type AttachmentStore } from '../attachments';
// RAMPFLOW_PAYLOAD_KEYS's format, for a partner backend that keeps its keys elsewhere than the environment.
export { PayloadKeysSchema, type PayloadKey } from '../config/env';
export { DEFAULT_LIST_LIMIT, type DepositFilter, type DepositListing, type EventFilter, type EventListing, type JourneyFilter, type JourneyListing } from './visibility';
export type { JourneyRequest } from '../workflows/journey-input';
export {
  DEPOSIT_STAGES,
  JOURNEY_STAGES,
  type AttachmentReference,
  type Attention,
  type DepositStage,
  type DepositState,
  type JourneyStage,
  type JourneyState,
} from '../workflows/messages';
