/** The default attachment store: one file per document in a local folder (RAMPFLOW_ATTACHMENTS_DIR). */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { AttachmentStore } from './attachment-store';

// References are ours (random UUIDs), so a reference read back from a history cannot name another path.
const REFERENCE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class LocalFolderAttachmentStore implements AttachmentStore {
  readonly folder: string;

  constructor(folder: string) {
    this.folder = resolve(folder);
  }

  async put(content: Uint8Array): Promise<string> {
    const reference = randomUUID();
    await mkdir(this.folder, { recursive: true, mode: 0o700 });
    // Owner-only: these are customers' identity documents.
    await writeFile(join(this.folder, reference), content, { mode: 0o600, flag: 'wx' });
    return reference;
  }

  async get(reference: string): Promise<Uint8Array> {
    if (!REFERENCE.test(reference)) throw new Error(`not a reference of this attachment store: ${reference}`);
    try {
      return await readFile(join(this.folder, reference));
    } catch (error) {
      throw new Error(
        `attachment ${reference} is not in ${this.folder}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
        { cause: error },
      );
    }
  }
}
