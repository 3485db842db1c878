/** The shape check of a submitted attachment reference, for the deposit's update validator. */
import { AttachmentReferenceSchema } from './message-schemas';
import type { AttachmentReference } from './messages';

export function isAttachmentReference(value: unknown): value is AttachmentReference {
  return AttachmentReferenceSchema.safeParse(value).success;
}
