/** Documents out of Temporal's history: the claim-check store (docs/deploying/customer-data-and-keys.md). */
import { AttachmentEnvSchema, parseEnv } from '../config/env';
import type { AttachmentStore } from './attachment-store';
import { LocalFolderAttachmentStore } from './local-folder-store';

export { checkIn, checkOut, type AttachmentFile, type AttachmentStore } from './attachment-store';
export { LocalFolderAttachmentStore } from './local-folder-store';

/** The store RAMPFLOW_ATTACHMENTS_DIR names (a local folder, `.data/attachments` by default). */
export function attachmentStoreFromEnv(env: NodeJS.ProcessEnv = process.env): AttachmentStore {
  return new LocalFolderAttachmentStore(parseEnv(AttachmentEnvSchema, env).RAMPFLOW_ATTACHMENTS_DIR);
}
