/**
 * The one place the project builds Go tools for itself (the Temporal CLI, the Temporal server and its
 * SQL schema tool): `go install` into the project's tools folder, once per machine, with a progress
 * line every 20 seconds, and a check that the result runs and reports the pinned version.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { basename, delimiter, join, resolve } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

const PROJECT_ROOT = resolve(__dirname, '..');
/** Where the project builds its tools; RAMPFLOW_TOOLS_DIR lets several clones share one build. */
export const LOCAL_TOOLS_BIN = join(process.env.RAMPFLOW_TOOLS_DIR ?? join(PROJECT_ROOT, '.tools'), 'bin');

/** A tool and the pinned version of it the project builds. */
export interface GoTool {
  /** What it is called in progress lines, e.g. "Temporal CLI". */
  label: string;
  version: string;
  /** The package `go install` builds, with its version: `module/cmd/x@vX.Y.Z`. */
  goPackage: string;
  /** The file name it gets in the tools folder (go names it after the package's last element). */
  binaryName: string;
  ldflags?: string;
}

/** Neither the tool nor a Go toolchain to build it. */
export class GoUnavailableError extends Error {}

/** The version a tool reports with `--version` ("<name> version 1.2.3 ..."), or undefined when it cannot be run. */
export async function reportedVersion(binary: string): Promise<string | undefined> {
  try {
    const { stdout } = await execFileAsync(binary, ['--version'], { timeout: 15_000 });
    return /version\s+v?(\S+)/.exec(stdout)?.[1];
  } catch {
    return undefined;
  }
}

export function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** The project's own build of the tool, if it is there and reports the pinned version. */
export async function findLocalBuild(tool: GoTool): Promise<string | undefined> {
  const path = join(LOCAL_TOOLS_BIN, tool.binaryName);
  return existsSync(path) && (await reportedVersion(path)) === tool.version ? path : undefined;
}

/** Builds the pinned tool into the tools folder with `go install`, printing a progress line as it goes. */
export async function buildGoTool(tool: GoTool, log: (line: string) => void, hint: string): Promise<string> {
  const go = onPath('go');
  if (!go) {
    throw new GoUnavailableError(
      `${tool.label} ${tool.version} is not installed and Go is not available to build it. ` +
        `Install Go (https://go.dev/dl/) and ${hint}`,
    );
  }
  mkdirSync(LOCAL_TOOLS_BIN, { recursive: true });
  // go names the binary after its package; it lands in a folder of its own and is renamed into place,
  // so a half-built file never carries the final name.
  const staging = mkdtempSync(join(LOCAL_TOOLS_BIN, '.building-'));
  const args = ['install', '-v', ...(tool.ldflags ? ['-ldflags', tool.ldflags] : []), tool.goPackage];
  log(`building ${tool.label} ${tool.version} with ${go} (once per machine; a few minutes on 2 cores)`);
  const started = Date.now();
  let packagesBuilt = 0;
  const child = spawn(go, args, { env: { ...process.env, GOBIN: staging }, stdio: ['ignore', 'ignore', 'pipe'] });
  let tail = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    // `go install -v` prints one package path per line as it compiles; "go: ..." lines are downloads.
    packagesBuilt += chunk.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('go:')).length;
    tail = (tail + chunk).slice(-4000);
  });
  const ticker = setInterval(() => {
    log(
      `  still building ${tool.label}: ${packagesBuilt} packages compiled, ${Math.round((Date.now() - started) / 1000)} s`,
    );
  }, 20_000);
  try {
    const code = await new Promise<number | null>((done, fail) => {
      child.on('error', fail);
      child.on('close', done);
    });
    if (code !== 0) throw new Error(`go install failed (exit ${code}):\n${tail.trim()}`);
    const packageName = basename(tool.goPackage.replace(/@.*$/, ''));
    renameSync(join(staging, packageName), join(LOCAL_TOOLS_BIN, tool.binaryName));
  } finally {
    clearInterval(ticker);
    rmSync(staging, { recursive: true, force: true });
  }
  const path = join(LOCAL_TOOLS_BIN, tool.binaryName);
  const version = await reportedVersion(path);
  if (version !== tool.version) throw new Error(`built ${path} but it reports version ${version ?? 'nothing'}`);
  log(`built ${tool.label} ${version} in ${Math.round((Date.now() - started) / 1000)} s: ${path}`);
  return path;
}
