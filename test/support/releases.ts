/**
 * The released workflow code kept as test fixtures (README, "Changing workflow code"): each release
 * folder under test/fixtures/ holds the histories recorded on that release (histories/<release>/) and
 * the release's own workflow bundle (releases/<release>/workflow-bundle.js.gz). Both are written once
 * by `npm run histories:record -- --release <name>` and never changed.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { withoutSourceMap } from '../../workers/versioning';
import { PROJECT_ROOT } from './run';

export const HISTORIES_DIR = join(PROJECT_ROOT, 'test', 'fixtures', 'histories');
export const RELEASES_DIR = join(PROJECT_ROOT, 'test', 'fixtures', 'releases');
export const RELEASE_BUNDLE_FILE = 'workflow-bundle.js.gz';
/** v0.1.0, v0.12.3: what a release folder is called. */
export const RELEASE_NAME = /^v\d+\.\d+\.\d+$/;

/** Release names in release order (v0.2.0 before v0.10.0). */
export function sortReleases(names: string[]): string[] {
  const parts = (name: string) => name.slice(1).split('.').map(Number);
  return [...names].sort((a, b) => {
    const [pa, pb] = [parts(a), parts(b)];
    for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i]! - pb[i]!;
    return 0;
  });
}

export function releasesIn(folder: string): string[] {
  return sortReleases(readdirSync(folder, { withFileTypes: true }).filter((entry) => entry.isDirectory() && RELEASE_NAME.test(entry.name)).map((entry) => entry.name));
}

/**
 * What a release folder keeps of a workflow bundle: its code with an empty source map in place of
 * the real one (four fifths of the file; only stack traces use it, and the build ID leaves it out).
 * The worker insists on finding an inline source map, hence the empty one rather than none.
 */
export function keptReleaseBundle(code: string | Buffer): Buffer {
  const emptyMap = Buffer.from(JSON.stringify({ version: 3, sources: [], names: [], mappings: '' })).toString('base64');
  return gzipSync(Buffer.from(`${withoutSourceMap(code)}\n//# sourceMappingURL=data:application/json;base64,${emptyMap}`), { level: 9 });
}

/** The newest release's workflow bundle, unzipped to a file a worker can load. */
export function latestReleaseBundle(): { release: string; code: Buffer; codePath: string } {
  const release = releasesIn(RELEASES_DIR).at(-1);
  if (!release) throw new Error(`no release under ${RELEASES_DIR}`);
  const code = gunzipSync(readFileSync(join(RELEASES_DIR, release, RELEASE_BUNDLE_FILE)));
  const codePath = join(mkdtempSync(join(tmpdir(), `rampflow-${release}-`)), 'workflow-bundle.js');
  writeFileSync(codePath, code);
  return { release, code, codePath };
}
