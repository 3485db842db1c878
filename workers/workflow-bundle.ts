/**
 * The workflow bundle, built in a child process. Bundling runs webpack, which leaves a worker process
 * well over 100 MiB heavier for its whole life if it bundles for itself; a short-lived child does the
 * work and the worker only loads the result (about 2 MB of code).
 *
 * Run directly (`tsx workers/workflow-bundle.ts <out.js>`), it writes the bundle of workflows/index.ts.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOW_BUNDLE_PATHS } from './worker';

const TSX_CLI = require.resolve('tsx/cli');

/** Builds the bundle in a child process and returns the path of the file it wrote. */
export async function buildWorkflowBundleInChild(): Promise<string> {
  const codePath = join(mkdtempSync(join(tmpdir(), 'rampflow-bundle-')), 'workflow-bundle.js');
  try {
    await promisify(execFile)(process.execPath, [TSX_CLI, __filename, codePath], { maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`bundling the workflows failed${stderr ? `:\n${stderr}` : ''}`, { cause: error });
  }
  return codePath;
}

async function writeBundle(outPath: string): Promise<void> {
  const quiet = { trace() {}, debug() {}, info() {}, log() {}, warn: console.warn, error: console.error };
  const { code } = await bundleWorkflowCode({ ...WORKFLOW_BUNDLE_PATHS, logger: quiet });
  writeFileSync(outPath, code);
}

if (require.main === module) {
  const outPath = process.argv[2];
  if (!outPath) throw new Error('usage: workflow-bundle.ts <out.js>');
  writeBundle(outPath).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
