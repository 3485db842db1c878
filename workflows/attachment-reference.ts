/**
 * The shape check of a submitted attachment reference, for the deposit's update validator. Plain
 * TypeScript: it runs inside the workflow sandbox.
 */
import type { AttachmentReference } from './messages';

export function isAttachmentReference(value: unknown): value is AttachmentReference {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.reference === 'string' &&
    candidate.reference.length > 0 &&
    candidate.reference.length <= 200 &&
    typeof candidate.sha256 === 'string' &&
    /^[0-9a-f]{64}$/.test(candidate.sha256) &&
    typeof candidate.fileName === 'string' &&
    candidate.fileName.length > 0 &&
    candidate.fileName.length <= 255 &&
    typeof candidate.contentType === 'string' &&
    candidate.contentType.length > 0 &&
    candidate.contentType.length <= 255 &&
    typeof candidate.size === 'number' &&
    Number.isInteger(candidate.size) &&
    candidate.size > 0 &&
    // Only these fields: anything else (the bytes themselves, say) would land in the history.
    Object.keys(candidate).every((key) => ['reference', 'sha256', 'fileName', 'contentType', 'size'].includes(key))
  );
}
