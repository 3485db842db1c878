/**
 * The replay corpus only grows: every file under test/fixtures/histories/ and test/fixtures/releases/
 * is listed in test/fixtures/replay-corpus.sha256 with the hash it was recorded with, and every
 * version of that manifest git has ever held is the start of the current one. So a recorded history
 * or release bundle can be neither changed nor removed, not even together with its manifest line.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  corpusFiles,
  CURRENT_MAJOR,
  FIXTURES_DIR,
  foldsAsRecorded,
  HISTORIES_DIR,
  majorOf,
  MANIFEST_PATH,
  parseManifest,
  readManifest,
  RELEASE_BUNDLE_FILE,
  RELEASE_FOLDS_FILE,
  RELEASE_NAME,
  releasesIn,
  RELEASES_DIR,
  sha256,
} from '../../dev/replay-corpus';
import { FOLDS } from '../../workflows/common/patches';
import { PROJECT_ROOT } from '../support/run';

const git = (...args: string[]) =>
  execFileSync('git', args, { cwd: PROJECT_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const inGitCheckout = (() => {
  try {
    return git('rev-parse', '--is-inside-work-tree').trim() === 'true';
  } catch {
    return false;
  }
})();

describe('the replay corpus only grows', () => {
  it('lists every file of the corpus with the hash it was recorded with, and nothing else', () => {
    const manifest = readManifest();
    expect(manifest.map((entry) => entry.path).sort()).toEqual(corpusFiles());
    const changed = manifest
      .filter((entry) => sha256(readFileSync(join(FIXTURES_DIR, entry.path))) !== entry.sha256)
      .map((entry) => entry.path);
    expect(changed, 'recorded files are never changed: record a new release instead').toEqual([]);
  });

  it('keeps histories only in release folders, each release with its workflow bundle', () => {
    const loose = corpusFiles().filter(
      (path) => path.startsWith('histories/') && !/^histories\/v\d+\.\d+\.\d+\/[a-z0-9-]+\.json$/.test(path),
    );
    expect(loose).toEqual([]);
    const recorded = releasesIn(HISTORIES_DIR);
    expect(recorded.length).toBeGreaterThan(0);
    expect(recorded.every((release) => RELEASE_NAME.test(release))).toBe(true);
    expect(releasesIn(RELEASES_DIR)).toEqual(recorded);
    for (const release of recorded) expect(corpusFiles()).toContain(`releases/${release}/${RELEASE_BUNDLE_FILE}`);
  });

  // A fold's marker means, in every history recorded with it, the patches its release said it takes
  // (workflows/common/patches.ts): a fold edited after its release would replay those histories differently.
  // Only the current major's releases replay on the current code; an earlier major's folds are kept by
  // its own release bundle (test/workflows/replay.test.ts), and the current code starts with none.
  it('keeps every released patch fold of the current major as its release recorded it', () => {
    const current = foldsAsRecorded(FOLDS);
    for (const release of releasesIn(RELEASES_DIR).filter((name) => majorOf(name) === CURRENT_MAJOR)) {
      const path = join(RELEASES_DIR, release, RELEASE_FOLDS_FILE);
      if (!existsSync(path)) continue; // releases before folds (v0.6.0 and earlier)
      const recorded = JSON.parse(readFileSync(path, 'utf8')) as Record<string, string[]>;
      for (const [patchId, takes] of Object.entries(recorded))
        expect(current[patchId], `fold ${patchId} of ${release}`).toEqual(takes);
    }
  });

  it.skipIf(!inGitCheckout)(
    'only ever gains lines: each committed manifest is the start of the current one (skipped outside a git checkout)',
    () => {
      const path = relative(PROJECT_ROOT, MANIFEST_PATH).split('\\').join('/');
      const current = readFileSync(MANIFEST_PATH, 'utf8');
      const commits = git('log', '--format=%H', '--', path).split('\n').filter(Boolean);
      for (const commit of commits) {
        const earlier = git('show', `${commit}:${path}`);
        parseManifest(earlier);
        expect(current.startsWith(earlier), `the manifest of ${commit.slice(0, 10)} lost or changed lines`).toBe(true);
      }
    },
  );
});
