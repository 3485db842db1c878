/**
 * The deposit's deliveries, query and `submitAttachment` update (workflows/deposit.ts): events are
 * applied at most once and only forward (workflows/deposit-ledger.ts); hints wait for a look
 * (workflows/deposit-hints.ts).
 */
import { setHandler } from '@temporalio/workflow';
import { changeOptions } from './activity-options';
import { isAttachmentReference } from './attachment-reference';
import { depositActivities as act } from './deposit-activities';
import type { DepositCourse } from './deposit-course';
import { depositEventSignal, depositStateQuery, paymentEventSignal, submitAttachmentUpdate, tradeEventSignal } from './messages';
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
  setHandler(
    submitAttachmentUpdate,
    async (attachment) => {
      await act.submitDepositAttachment.executeWithOptions(changeOptions('submit the attachment the service asked for'), [
        { depositId, attachment },
      ]);
      ledger.attachmentSubmitted = true;
      return { submitted: true as const };
    },
    {
      validator: (attachment) => {
        if (ledger.deposit?.status !== 'ACTION_REQUIRED') throw new Error(`the deposit is ${ledger.deposit?.status ?? 'not read yet'}, not ACTION_REQUIRED: the service asked for no attachment`);
        // Only a reference to the stored bytes enters the history (attachments/, the claim check).
        if (!isAttachmentReference(attachment)) throw new Error('expected an attachment reference {reference, sha256, fileName, contentType, size}: store the file first (the client library does)');
      },
    },
  );
}
