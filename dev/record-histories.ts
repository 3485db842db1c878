/**
 * `npm run histories:record -- --release <name>`: records a release's replay corpus (README,
 * "Changing workflow code"). Runs test/histories/record-release.ts on its own dev server and sandbox,
 * then files what it recorded, refusing to overwrite anything:
 *   test/fixtures/histories/<release>/*.json          one history per recorded path
 *   test/fixtures/releases/<release>/workflow-bundle.js.gz   the workflow code they were recorded on
 *   test/fixtures/releases/<release>/patch-folds.json        what each patch fold of that code stands for
 *   test/fixtures/replay-corpus.sha256                one line per new file, appended
 * Run it once per release, from the code that ships, and commit the three together.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FOLDS } from '../workflows/common/patches';
import {
  FIXTURES_DIR,
  foldsAsRecorded,
  HISTORIES_DIR,
  keptReleaseBundle,
  manifestLine,
  MANIFEST_PATH,
  RELEASE_BUNDLE_FILE,
  RELEASE_FOLDS_FILE,
  RELEASE_NAME,
  RELEASES_DIR,
} from './replay-corpus';
import { requireTemporalCli } from './temporal-cli';

const PROJECT_ROOT = resolve(__dirname, '..');
const VITEST = join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const log = (line: string) => process.stdout.write(`[histories:record] ${line}\n`);

function releaseArgument(): string {
  const flag = process.argv.indexOf('--release');
  const release = flag >= 0 ? process.argv[flag + 1] : undefined;
  if (!release || !RELEASE_NAME.test(release))
    throw new Error('usage: npm run histories:record -- --release v<major>.<minor>.<patch>');
  return release;
}

function runRecorder(outDir: string, temporalCli: string): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [VITEST, 'run', '--config', 'test/histories/recorder.vitest.config.ts'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, RAMPFLOW_RECORD_OUT: outDir, TEMPORAL_CLI: temporalCli },
      stdio: 'inherit',
    });
    child.on('error', fail);
    child.on('close', (code) =>
      code === 0 ? done() : fail(new Error(`the recorder failed (exit ${code}); nothing was filed`)),
    );
  });
}

/** Writes a file that must not exist yet ('wx'): a recorded file is never replaced. */
function writeNew(path: string, content: string | Buffer): void {
  writeFileSync(path, content, { flag: 'wx' });
}

async function main(): Promise<void> {
  const release = releaseArgument();
  const historiesDir = join(HISTORIES_DIR, release);
  const releaseDir = join(RELEASES_DIR, release);
  for (const dir of [historiesDir, releaseDir]) {
    if (existsSync(dir)) throw new Error(`${dir} exists: a release is recorded once, and its files are never replaced`);
  }
  const cli = await requireTemporalCli();
  const outDir = mkdtempSync(join(tmpdir(), `rampflow-record-${release}-`));
  log(`recording ${release} into ${outDir}`);
  await runRecorder(outDir, cli.path);

  const histories = readdirSync(outDir)
    .filter((file) => file.endsWith('.json'))
    .sort();
  mkdirSync(historiesDir, { recursive: true });
  mkdirSync(releaseDir, { recursive: true });
  const filed: string[] = [];
  for (const file of histories) {
    writeNew(join(historiesDir, file), readFileSync(join(outDir, file)));
    filed.push(`histories/${release}/${file}`);
  }
  writeNew(join(releaseDir, RELEASE_BUNDLE_FILE), keptReleaseBundle(readFileSync(join(outDir, 'workflow-bundle.js'))));
  filed.push(`releases/${release}/${RELEASE_BUNDLE_FILE}`);
  writeNew(join(releaseDir, RELEASE_FOLDS_FILE), `${JSON.stringify(foldsAsRecorded(FOLDS), null, 2)}\n`);
  filed.push(`releases/${release}/${RELEASE_FOLDS_FILE}`);
  appendFileSync(MANIFEST_PATH, filed.map(manifestLine).join(''));
  log(
    `filed ${histories.length} histories, the release's workflow bundle and its patch folds under ${FIXTURES_DIR}; commit them with replay-corpus.sha256`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`[histories:record] ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
