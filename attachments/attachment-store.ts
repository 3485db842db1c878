/**
 * Customers' documents are kept out of Temporal (a claim check): the bytes go to an attachment store
 * and only an `AttachmentReference` (workflows/common/messages.ts) travels through the update, the activity
 * and the history. A local folder is the default; an object store (S3, GCS, Azure Blob) implements
 * the same two methods.
 */
import { createHash } from 'node:crypto';
import type { AttachmentReference } from '../workflows/common/messages';

export interface AttachmentStore {
  /** Stores the bytes and returns a reference that `get` accepts; the reference says nothing about the content. */
  put(content: Uint8Array): Promise<string>;
  /** The bytes stored under the reference; throws when there are none. */
  get(reference: string): Promise<Uint8Array>;
}

export interface AttachmentFile {
  fileName: string;
  contentType: string;
  content: Uint8Array;
}

const sha256 = (content: Uint8Array) => createHash('sha256').update(content).digest('hex');

/** Stores a document and returns what may travel through Temporal in its place. */
export async function checkIn(store: AttachmentStore, file: AttachmentFile): Promise<AttachmentReference> {
  const reference = await store.put(file.content);
  return {
    reference,
    sha256: sha256(file.content),
    fileName: file.fileName,
    contentType: file.contentType,
    size: file.content.byteLength,
  };
}

/** The document's bytes, checked against the hash that travelled with its reference. */
export async function checkOut(store: AttachmentStore, attachment: AttachmentReference): Promise<Uint8Array> {
  const content = await store.get(attachment.reference);
  if (content.byteLength !== attachment.size || sha256(content) !== attachment.sha256) {
    throw new Error(`attachment ${attachment.reference} does not match the hash it was submitted with`);
  }
  return content;
}
