/**
 * The second half of `npm run build` (after `tsc -p tsconfig.build.json` compiled the sources to
 * dist/): copies the plain JavaScript the compiled code loads at run time, and writes the workflow
 * bundle the worker runs (dist/workflow-bundle.js). Prints the bundle's build ID, the version a
 * worker of this build joins (README, "Changing workflow code").
 */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { buildIdOfBundle } from '../workers/versioning';
import { PREBUILT_BUNDLE_PATH, writeWorkflowBundle } from '../workers/workflow-bundle';

const PROJECT_ROOT = resolve(__dirname, '..');
/** Files tsc does not emit because they are JavaScript already; loaded by path, so they must sit beside the compiled code. */
const PLAIN_JAVASCRIPT = ['codec/failure-converter.js'];

async function main(): Promise<void> {
  for (const file of PLAIN_JAVASCRIPT) {
    const target = join(PROJECT_ROOT, 'dist', file);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(join(PROJECT_ROOT, file), target);
  }
  await writeWorkflowBundle(PREBUILT_BUNDLE_PATH);
  process.stdout.write(`[build] dist/ and dist/workflow-bundle.js (build ID ${buildIdOfBundle(readFileSync(PREBUILT_BUNDLE_PATH))})\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`[build] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
