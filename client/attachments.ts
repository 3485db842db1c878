/**
 * The client's attachment part: the document the service asked a deposit for. The bytes go to the
 * attachment store (attachments/, the claim check); the deposit's workflow, and so its history, gets
 * only their reference and SHA-256. RampflowClient (client/rampflow-client.ts) offers this as its own.
 */
import { checkIn, type AttachmentFile, type AttachmentStore } from '../attachments';
import { submitAttachmentUpdate } from '../workflows/common/messages';
import type { DepositOperations } from './deposits';
import { parseAttachment } from './input-validation';
import { executeUpdateOnce } from './update-once';

export class AttachmentOperations {
  /**
   * @param deposits the deposits the attachments are for
   * @param attachmentStore where submitted documents are kept, so that only their reference enters a history
   */
  constructor(
    private readonly deposits: DepositOperations,
    private readonly attachmentStore: AttachmentStore,
  ) {}

  /**
   * Sends the document the service asked for to a deposit in ACTION_REQUIRED. Resolves once the
   * service has accepted it. The bytes go to the attachment store; the workflow (and its history)
   * gets only their reference and SHA-256, and the worker reads them back by reference.
   */
  async submitAttachment(depositId: string, attachment: AttachmentFile): Promise<{ submitted: true }> {
    const checked = parseAttachment(attachment);
    const reference = await checkIn(this.attachmentStore, checked);
    return this.deposits.onDeposit(
      depositId,
      (handle) => executeUpdateOnce(handle, submitAttachmentUpdate, [reference]),
      'submitAttachment',
    );
  }
}
