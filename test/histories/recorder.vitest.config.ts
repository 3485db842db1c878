/**
 * The vitest configuration `npm run histories:record` runs (dev/record-histories.ts): the `temporal`
 * project's dev server and workflow bundle, and only the recorder, which is not part of `npm test`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePayloadKey } from '../../codec/keys';
import { defineConfig } from 'vitest/config';

process.env.RAMPFLOW_ATTACHMENTS_DIR ||= mkdtempSync(join(tmpdir(), 'rampflow-attachments-'));
// The partner event store seals what it keeps; the histories themselves stay plain.
process.env.RAMPFLOW_PAYLOAD_KEYS ||= generatePayloadKey('recorder');

export default defineConfig({
  test: {
    pool: 'forks',
    include: ['test/histories/record-release.ts'],
    globalSetup: ['test/support/temporal-global-setup.ts'],
    setupFiles: ['test/support/quiet-temporal-runtime.ts'],
    testTimeout: 300_000,
    hookTimeout: 180_000,
  },
});
