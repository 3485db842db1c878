/**
 * The deposit's deliveries, query and `submitAttachment` update (workflows/deposit.ts; one attachment
 * per deposit, the same file again answered as the first): events are
 * applied at most once and only forward (workflows/deposit-ledger.ts); hints wait for a look
 * (workflows/deposit-hints.ts).
 */
import { condition, setHandler } from '@temporalio/workflow';
import { changeOptions } from './activity-options';
import { isAttachmentReference } from './attachment-reference';
import { depositActivities as act } from './deposit-activities';
import type { DepositCourse } from './deposit-course';
import { depositEventSignal, depositStateQuery, paymentEventSignal, submitAttachmentUpdate, tradeEventSignal } from './messages';
import { ATTACHMENT_SUBMITTED_ONCE, takesPatch } from './patches';
import { isHint } from './trust';

export function registerDepositHandlers({ depositId, ledger, state, applied, hints, desk }: DepositCourse): void {
  // Hints are not de-duplicated by key: each costs at most one read, and a forged delivery that came
  // first must not use up the key of the genuine one.
  setHandler(depositEventSignal, (event) => {
    if (isHint(event)) {
      hints.noteDeposit(event.record);
    } else applied.applyOnce(event.key, () => ledger.applyDeposit(event.record));
  });
  setHandler(tradeEventSignal, (event) => (isHint(event) ? hints.noteTrade(event.record) : applied.applyOnce(event.key, () => ledger.applyTrade(event.record, event.fromPayload === true))));
  setHandler(paymentEventSignal, (event) => (isHint(event) ? hints.notePayment(event.record) : applied.applyOnce(event.key, () => ledger.applyPayment(event.record, event.fromPayload === true))));
  setHandler(depositStateQuery, () => ({ ...state, attention: desk.attention }));
  // One attachment per deposit: the service asked for a document, and a second file would be a second
  // submission it has to review. The same file again (a client that lost the answer and retried) waits
  // for the first submission and gets its answer; a different file is refused by the validator.
  setHandler(
    submitAttachmentUpdate,
    async (attachment) => {
      if (ledger.attachmentSha256 !== undefined && takesPatch(ATTACHMENT_SUBMITTED_ONCE)) {
        // Bounded by the first submission's own activity: it succeeds, or fails and frees the claim.
        await condition(() => ledger.attachmentSubmitted || ledger.attachmentSha256 === undefined);
        if (ledger.attachmentSubmitted) return { submitted: true as const };
      }
      ledger.attachmentSha256 = attachment.sha256;
      try {
        await act.submitDepositAttachment.executeWithOptions(changeOptions('submit the attachment the service asked for'), [
          { depositId, attachment },
        ]);
      } catch (error) {
        ledger.attachmentSha256 = undefined;
        throw error;
      }
      ledger.attachmentSubmitted = true;
      return { submitted: true as const };
    },
    {
      validator: (attachment) => {
        if (ledger.deposit?.status !== 'ACTION_REQUIRED') throw new Error(`the deposit is ${ledger.deposit?.status ?? 'not read yet'}, not ACTION_REQUIRED: the service asked for no attachment`);
        // Only a reference to the stored bytes enters the history (attachments/, the claim check).
        if (!isAttachmentReference(attachment)) throw new Error('expected an attachment reference {reference, sha256, fileName, contentType, size}: store the file first (the client library does)');
        if (ledger.attachmentSha256 !== undefined && ledger.attachmentSha256 !== attachment.sha256) {
          throw new Error('an attachment was already submitted for this deposit: the service reviews that one; a second, different file is refused');
        }
      },
    },
  );
}
