/**
 * The deposit's deliveries, query and `submitAttachment` update (workflows/deposit/workflow.ts; one attachment
 * per deposit, the same file again answered as the first): events are
 * applied at most once and only forward (workflows/deposit/ledger.ts); hints wait for a look
 * (workflows/deposit/hints.ts).
 */
import { ActivityFailure, ApplicationFailure, condition, setHandler } from '@temporalio/workflow';
import { changeOptions } from '../common/activity-options';
import { isAttachmentReference } from '../common/attachment-reference';
import { depositActivities as act } from './service-calls';
import type { DepositCourse } from './course';
import {
  depositEventSignal,
  depositStateQuery,
  paymentEventSignal,
  submitAttachmentUpdate,
  tradeEventSignal,
} from '../common/messages';
import { ATTACHMENT_READS_DEPOSIT_FIRST, ATTACHMENT_SUBMITTED_ONCE, takesPatch } from '../common/patches';
import { isHint } from '../common/trust';

/** Why an attachment is refused: the service asked for none (as far as the deposit's last read of it says). */
const notAskedFor = (status: string | undefined): string =>
  `the deposit is ${status ?? 'not read yet'}, not ACTION_REQUIRED: the service asked for no attachment`;

export function registerDepositHandlers({
  depositId,
  ledger,
  state,
  applied,
  hints,
  desk,
  pollDeposit,
}: DepositCourse): void {
  // Hints are not de-duplicated by key: each costs at most one read, and a forged delivery that came
  // first must not use up the key of the genuine one.
  setHandler(depositEventSignal, (event) => {
    if (isHint(event)) {
      hints.noteDeposit(event.record);
    } else applied.applyOnce(event.key, () => ledger.applyDeposit(event.record));
  });
  setHandler(tradeEventSignal, (event) =>
    isHint(event)
      ? hints.noteTrade(event.record)
      : applied.applyOnce(event.key, () => ledger.applyTrade(event.record, event.fromPayload === true)),
  );
  setHandler(paymentEventSignal, (event) =>
    isHint(event)
      ? hints.notePayment(event.record)
      : applied.applyOnce(event.key, () => ledger.applyPayment(event.record, event.fromPayload === true)),
  );
  setHandler(depositStateQuery, () => ({ ...state, attention: desk.attention }));
  // One attachment per deposit: the service asked for a document, and a second file would be a second
  // submission it has to review. The same file again (a client that lost the answer and retried) waits
  // for the first submission and gets its answer; a different file is refused by the validator.
  setHandler(
    submitAttachmentUpdate,
    async (attachment) => {
      // Accepted while RECEIVED (the validator's one exception): ACTION_REQUIRED comes with no event,
      // so the service is read before the attachment is refused.
      if (ledger.deposit?.status !== 'ACTION_REQUIRED') await readBeforeRefusing();
      if (ledger.attachmentSha256 !== undefined && takesPatch(ATTACHMENT_SUBMITTED_ONCE)) {
        // Bounded by the first submission's own activity: it succeeds, or fails and frees the claim.
        await condition(() => ledger.attachmentSubmitted || ledger.attachmentSha256 === undefined);
        if (ledger.attachmentSubmitted) return { submitted: true as const };
      }
      ledger.attachmentSha256 = attachment.sha256;
      try {
        await act.submitDepositAttachment.executeWithOptions(
          changeOptions('submit the attachment the service asked for'),
          [{ depositId, attachment }],
        );
      } catch (error) {
        ledger.attachmentSha256 = undefined;
        throw error;
      }
      ledger.attachmentSubmitted = true;
      return { submitted: true as const };
    },
    {
      validator: (attachment) => {
        // Refused at once, before any history is written, where no read could change the answer: a
        // deposit past RECEIVED (state only moves forward) or not read yet. RECEIVED is read first.
        const status = ledger.deposit?.status;
        if (status !== 'ACTION_REQUIRED' && status !== 'RECEIVED') throw new Error(notAskedFor(status));
        // Only a reference to the stored bytes enters the history (attachments/, the claim check).
        if (!isAttachmentReference(attachment))
          throw new Error(
            'expected an attachment reference {reference, sha256, fileName, contentType, size}: store the file first (the client library does)',
          );
        if (ledger.attachmentSha256 !== undefined && ledger.attachmentSha256 !== attachment.sha256) {
          throw new Error(
            'an attachment was already submitted for this deposit: the service reviews that one; a second, different file is refused',
          );
        }
      },
    },
  );

  /** One read of the deposit (the poll's), then the refusal if it is still not ACTION_REQUIRED. */
  async function readBeforeRefusing(): Promise<void> {
    const before = ledger.deposit?.status;
    // Runs recorded before the patch never got here: their validator refused every status but ACTION_REQUIRED.
    if (!takesPatch(ATTACHMENT_READS_DEPOSIT_FIRST))
      throw ApplicationFailure.nonRetryable(notAskedFor(before), 'AttachmentNotAskedFor');
    try {
      await pollDeposit();
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      throw ApplicationFailure.nonRetryable(
        `the deposit is ${before ?? 'not read yet'} as last read, and reading it again from the service failed (${error.cause?.message ?? error.message}): try again`,
        'DepositUnread',
      );
    }
    const status = ledger.deposit?.status;
    if (status !== 'ACTION_REQUIRED')
      throw ApplicationFailure.nonRetryable(
        `${notAskedFor(status)} (read from the service just now)`,
        'AttachmentNotAskedFor',
      );
  }
}
