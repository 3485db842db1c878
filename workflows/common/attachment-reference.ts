/** The shape check of a submitted attachment reference, for the deposit's update validator. */
import { checkAttachmentReference } from './contract-checks';
import type { AttachmentReference } from './messages';

export function isAttachmentReference(value: unknown): value is AttachmentReference {
  return checkAttachmentReference(value).ok;
}
