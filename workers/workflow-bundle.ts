/**
 * The workflow bundle: prebuilt by `npm run build` (dist/workflow-bundle.js), or built at start in a
 * child process where no prebuilt one fits (development only). Bundling runs webpack, which leaves a
 * worker process well over 100 MiB heavier for its whole life if it bundles for itself; a short-lived
 * child does the work and the worker only loads the result (about 2 MB of code).
 *
 * Run directly (`tsx workers/workflow-bundle.ts <out.js>`), it writes the bundle of workflows/index.ts.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bundleWorkflowCode } from '@temporalio/worker';
import { buildIdOfBundle } from './versioning';
import { WORKFLOW_BUNDLE_PATHS, WORKFLOWS_PATH } from './worker';

/** Compiled (dist/workers/*.js) or run from source through tsx (workers/*.ts). */
const RUNNING_FROM_BUILD = __filename.endsWith('.js');

/** Where `npm run build` writes the bundle: dist/workflow-bundle.js, from either layout. */
export const PREBUILT_BUNDLE_PATH = RUNNING_FROM_BUILD
  ? join(__dirname, '..', 'workflow-bundle.js')
  : join(__dirname, '..', 'dist', 'workflow-bundle.js');

export interface ResolvedWorkflowBundle {
  codePath: string;
  /** A hash of the bundle's code, its source map left out (workers/versioning.ts). */
  buildId: string;
  /** Why this bundle: `prebuilt`, or the reason the worker bundled the sources itself. */
  origin: 'prebuilt' | 'bundled: no prebuilt bundle' | 'bundled: the prebuilt bundle is older than workflows/';
}

/**
 * The bundle a worker runs. The prebuilt one when there is one; in production (NODE_ENV=production)
 * there must be, so what was tested is what runs. Run from source, a prebuilt bundle older than any
 * file of workflows/ is stale (a developer changed a workflow since `npm run build`), so the sources
 * are bundled instead.
 */
export async function resolveWorkflowBundle(options: {
  production: boolean;
  prebuiltPath?: string;
  /** The path was named (WORKER_WORKFLOW_BUNDLE): one that is not there is a mistake, not a reason to bundle. */
  named?: boolean;
}): Promise<ResolvedWorkflowBundle> {
  const prebuiltPath = options.prebuiltPath ?? PREBUILT_BUNDLE_PATH;
  const prebuilt = modifiedAt(prebuiltPath);
  if (prebuilt === undefined && options.named) throw new Error(`WORKER_WORKFLOW_BUNDLE names no file: ${prebuiltPath}`);
  if (prebuilt === undefined && options.production) {
    throw new Error(
      `no prebuilt workflow bundle at ${prebuiltPath}: run \`npm run build\` (production workers never bundle at start)`,
    );
  }
  if (prebuilt !== undefined && (RUNNING_FROM_BUILD || options.production || prebuilt >= newestWorkflowSource())) {
    return { codePath: prebuiltPath, buildId: buildIdOfBundle(readFileSync(prebuiltPath)), origin: 'prebuilt' };
  }
  const codePath = await buildWorkflowBundleInChild();
  return {
    codePath,
    buildId: buildIdOfBundle(readFileSync(codePath)),
    origin:
      prebuilt === undefined ? 'bundled: no prebuilt bundle' : 'bundled: the prebuilt bundle is older than workflows/',
  };
}

function modifiedAt(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

function newestWorkflowSource(): number {
  return newestFileUnder(join(WORKFLOWS_PATH, '..'));
}

/**
 * When the newest file in `folder` or any folder below it was changed. Every workflow has a folder of
 * its own (workflows/deposit/run.ts...): reading the top level alone, a change there went unseen and a
 * stale prebuilt bundle ran (found 2026-11-28, in a chaos run beside a build).
 */
export function newestFileUnder(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestFileUnder(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const TSX_CLI = require.resolve('tsx/cli');

/** Builds the bundle in a child process and returns the path of the file it wrote. */
async function buildWorkflowBundleInChild(): Promise<string> {
  const codePath = join(mkdtempSync(join(tmpdir(), 'rampflow-bundle-')), 'workflow-bundle.js');
  try {
    await promisify(execFile)(process.execPath, [TSX_CLI, __filename, codePath], { maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`bundling the workflows failed${stderr ? `:\n${stderr}` : ''}`, { cause: error });
  }
  return codePath;
}

/** Bundles workflows/index.ts (with the failure converter) into one file. */
export async function writeWorkflowBundle(outPath: string): Promise<void> {
  const quiet = { trace() {}, debug() {}, info() {}, log() {}, warn: console.warn, error: console.error };
  const { code } = await bundleWorkflowCode({ ...WORKFLOW_BUNDLE_PATHS, logger: quiet });
  writeFileSync(outPath, code);
}

if (require.main === module) {
  const outPath = process.argv[2];
  if (!outPath) throw new Error('usage: workflow-bundle.ts <out.js>');
  writeWorkflowBundle(outPath).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
