/**
 * `npm run build`: the code every rampflow process runs in production, built once. Compiles the
 * sources to CommonJS (tsconfig.build.json) in dist/, copies the plain JavaScript the compiled code
 * loads by path, and writes the workflow bundle the worker runs (dist/workflow-bundle.js). Prints the
 * bundle's build ID: the Worker Deployment version a worker of this build joins (README, "Changing
 * workflow code"). `--out-dir <dir>` builds elsewhere (the build test does, to leave dist/ alone).
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { buildIdOfBundle } from '../workers/versioning';
import { writeWorkflowBundle } from '../workers/workflow-bundle';

const PROJECT_ROOT = resolve(__dirname, '..');
const TSC = join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
/** Files tsc does not emit because they are JavaScript already; loaded by path, so they must sit beside the compiled code. */
const PLAIN_JAVASCRIPT = ['codec/failure-converter.js', 'workflows/generated/contract-checks.js'];

async function main(): Promise<void> {
  const flag = process.argv.indexOf('--out-dir');
  const outDir = resolve(flag >= 0 && process.argv[flag + 1] ? process.argv[flag + 1]! : join(PROJECT_ROOT, 'dist'));
  rmSync(outDir, { recursive: true, force: true });
  await promisify(execFile)(
    process.execPath,
    [TSC, '-p', join(PROJECT_ROOT, 'tsconfig.build.json'), '--outDir', outDir],
    { cwd: PROJECT_ROOT },
  ).catch((error: unknown) => {
    throw new Error(`tsc failed:\n${(error as { stdout?: string }).stdout ?? String(error)}`);
  });
  for (const file of PLAIN_JAVASCRIPT) {
    const target = join(outDir, file);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(join(PROJECT_ROOT, file), target);
  }
  // The compiled worker looks for the bundle here (workers/workflow-bundle.ts, PREBUILT_BUNDLE_PATH).
  const bundlePath = join(outDir, 'workflow-bundle.js');
  await writeWorkflowBundle(bundlePath);
  process.stdout.write(
    `[build] ${outDir} with its workflow bundle (build ID ${buildIdOfBundle(readFileSync(bundlePath))})\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`[build] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
