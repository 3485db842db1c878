/**
 * docs/reference/client-api/ is what TypeDoc makes from client/index.ts now: an export added,
 * renamed, removed or redocumented without `npm run docs:generate` fails here, naming the file.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLIENT_API_DIR, generateClientApi } from '../../dev/docs/client-api';
import { PROJECT_ROOT } from '../support/run';

function filesUnder(folder: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.set(relative(folder, path), readFileSync(path, 'utf8'));
    }
  };
  walk(folder);
  return files;
}

describe('the client library API reference', () => {
  const fresh = mkdtempSync(join(tmpdir(), 'rampflow-client-api-'));
  afterAll(() => rmSync(fresh, { recursive: true, force: true }));

  it('is what TypeDoc makes from client/index.ts now (run `npm run docs:generate`)', async () => {
    await generateClientApi(PROJECT_ROOT, fresh, true);
    const expected = filesUnder(fresh);
    const committed = filesUnder(join(PROJECT_ROOT, CLIENT_API_DIR));
    expect(expected.has('README.md')).toBe(true);
    expect([...committed.keys()].sort(), `${CLIENT_API_DIR} has the files TypeDoc makes`).toEqual(
      [...expected.keys()].sort(),
    );
    for (const [file, text] of expected)
      expect(committed.get(file), `${CLIENT_API_DIR}/${file} is stale: run \`npm run docs:generate\``).toBe(text);
  }, 180_000);
});
