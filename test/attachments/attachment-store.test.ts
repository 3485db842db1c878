/** The claim check: documents in the local folder store, read back only when they match their hash. */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkIn, checkOut, LocalFolderAttachmentStore } from '../../attachments';

const DOCUMENT = {
  fileName: 'payslip.pdf',
  contentType: 'application/pdf',
  content: Buffer.from('%PDF-1.4 payslip of Ada Lovelace'),
};

describe('the attachment store', () => {
  it('keeps the bytes under an opaque reference, owner-readable only, and hands back a reference with their hash', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'attachments-'));
    const store = new LocalFolderAttachmentStore(folder);
    const attachment = await checkIn(store, DOCUMENT);
    expect(attachment).toEqual({
      reference: expect.stringMatching(/^[0-9a-f-]{36}$/),
      sha256: createHash('sha256').update(DOCUMENT.content).digest('hex'),
      fileName: 'payslip.pdf',
      contentType: 'application/pdf',
      size: DOCUMENT.content.length,
    });
    expect(readdirSync(folder)).toEqual([attachment.reference]);
    expect(statSync(join(folder, attachment.reference)).mode & 0o777).toBe(0o600);
    expect(Buffer.from(await checkOut(store, attachment)).equals(DOCUMENT.content)).toBe(true);
  });

  it('refuses bytes that no longer match their hash, a reference it did not make, and one it does not hold', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'attachments-'));
    const store = new LocalFolderAttachmentStore(folder);
    const attachment = await checkIn(store, DOCUMENT);
    writeFileSync(join(folder, attachment.reference), Buffer.from('%PDF-1.4 something else entirely'));
    await expect(checkOut(store, attachment)).rejects.toThrow(
      `attachment ${attachment.reference} does not match the hash it was submitted with`,
    );
    await expect(checkOut(store, { ...attachment, reference: '../../etc/passwd' })).rejects.toThrow(
      'not a reference of this attachment store',
    );
    await expect(checkOut(store, { ...attachment, reference: '00000000-0000-4000-8000-000000000000' })).rejects.toThrow(
      /is not in .*: ENOENT/,
    );
  });
});
