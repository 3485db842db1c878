/**
 * The replay corpus and the released workflow code, kept as test fixtures (README, "Changing workflow
 * code"): for each release, the histories recorded on it (test/fixtures/histories/<release>/) and its
 * own workflow bundle (test/fixtures/releases/<release>/workflow-bundle.js.gz). Written once by
 * `npm run histories:record -- --release <name>` and never changed: the manifest holds the SHA-256 of
 * every file and only ever gains lines (test/workflows/replay-corpus.test.ts checks both).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { withoutSourceMap } from '../workers/versioning';

export const FIXTURES_DIR = join(resolve(__dirname, '..'), 'test', 'fixtures');
export const HISTORIES_DIR = join(FIXTURES_DIR, 'histories');
export const RELEASES_DIR = join(FIXTURES_DIR, 'releases');
/** `<sha256>  <path under test/fixtures>` per file, in the order the files were recorded. */
export const MANIFEST_PATH = join(FIXTURES_DIR, 'replay-corpus.sha256');
export const RELEASE_BUNDLE_FILE = 'workflow-bundle.js.gz';
/** The patch folds a release's code knew (workflows/common/patches.ts), as { patchId: [ids it takes] }: what its fold markers mean forever. */
export const RELEASE_FOLDS_FILE = 'patch-folds.json';

/** The folds of the current code, in the form RELEASE_FOLDS_FILE keeps them. */
export function foldsAsRecorded(
  folds: readonly { patchId: string; takes: ReadonlySet<string> }[],
): Record<string, string[]> {
  return Object.fromEntries(folds.map((fold) => [fold.patchId, [...fold.takes].sort()]));
}
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
  return sortReleases(
    readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && RELEASE_NAME.test(entry.name))
      .map((entry) => entry.name),
  );
}

/**
 * What a release folder keeps of a workflow bundle: its code with an empty source map in place of
 * the real one (four fifths of the file; only stack traces use it, and the build ID leaves it out).
 * The worker insists on finding an inline source map, hence the empty one rather than none.
 */
export function keptReleaseBundle(code: string | Buffer): Buffer {
  const emptyMap = Buffer.from(JSON.stringify({ version: 3, sources: [], names: [], mappings: '' })).toString('base64');
  return gzipSync(
    Buffer.from(`${withoutSourceMap(code)}\n//# sourceMappingURL=data:application/json;base64,${emptyMap}`),
    { level: 9 },
  );
}

/**
 * The major version the current workflow code is. Its releases' histories replay on the current code;
 * an earlier major's never reach it (a major runs on its own task queue and worker deployment,
 * docs/deploying/versioning.md, "Major versions"), so they replay on that major's last release, the
 * code that drains them.
 */
export const CURRENT_MAJOR = 1;

/** 0 for v0.8.0, 1 for v1.2.3. */
export function majorOf(release: string): number {
  return Number(release.slice(1).split('.')[0]);
}

/** The newest release of `major` under RELEASES_DIR, undefined for none yet. */
export function lastReleaseOf(major: number): string | undefined {
  return releasesIn(RELEASES_DIR)
    .filter((release) => majorOf(release) === major)
    .at(-1);
}

/** The newest release's workflow bundle (or the named release's), unzipped to a file a worker can load. */
export function latestReleaseBundle(named?: string): { release: string; code: Buffer; codePath: string } {
  const release = named ?? releasesIn(RELEASES_DIR).at(-1);
  if (!release) throw new Error(`no release under ${RELEASES_DIR}`);
  const code = gunzipSync(readFileSync(join(RELEASES_DIR, release, RELEASE_BUNDLE_FILE)));
  const codePath = join(mkdtempSync(join(tmpdir(), `rampflow-${release}-`)), 'workflow-bundle.js');
  writeFileSync(codePath, code);
  return { release, code, codePath };
}

export const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

export interface ManifestEntry {
  sha256: string;
  /** Relative to test/fixtures, with forward slashes. */
  path: string;
}

export function parseManifest(text: string): ManifestEntry[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, index) => {
      const match = /^([0-9a-f]{64}) {2}(\S+)$/.exec(line);
      if (!match) throw new Error(`replay-corpus.sha256 line ${index + 1} is not '<sha256>  <path>'`);
      return { sha256: match[1]!, path: match[2]! };
    });
}

export function readManifest(): ManifestEntry[] {
  return existsSync(MANIFEST_PATH) ? parseManifest(readFileSync(MANIFEST_PATH, 'utf8')) : [];
}

/** Every file of the corpus (histories and release bundles), as manifest paths. */
export function corpusFiles(): string[] {
  const files: string[] = [];
  for (const root of [HISTORIES_DIR, RELEASES_DIR]) {
    if (!existsSync(root)) continue;
    for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) files.push(relative(FIXTURES_DIR, join(entry.parentPath, entry.name)).split('\\').join('/'));
    }
  }
  return files.sort();
}

/** The line a file gets in the manifest. */
export function manifestLine(path: string): string {
  return `${sha256(readFileSync(join(FIXTURES_DIR, path)))}  ${path}\n`;
}
