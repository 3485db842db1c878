/**
 * Finds the Temporal CLI that serves as rampflow's dev server, and builds it when there is none.
 *
 * Order: $TEMPORAL_CLI if set; else a `temporal` on PATH whose version is the pinned one; else the
 * project-local build in .tools/bin. Building uses the Go toolchain (`go install`), stamps the
 * version through -ldflags as the CLI's own release build does, and happens once per machine.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export const TEMPORAL_CLI_VERSION = '1.5.1';
const MODULE = 'github.com/temporalio/cli';
const PROJECT_ROOT = resolve(__dirname, '..');
/** Where the project builds its tools; RAMPFLOW_TOOLS_DIR lets several clones share one build. */
export const LOCAL_TOOLS_BIN = join(process.env.RAMPFLOW_TOOLS_DIR ?? join(PROJECT_ROOT, '.tools'), 'bin');

/** The version a `temporal` binary reports, or undefined when it cannot be run. */
export async function temporalCliVersion(binary: string): Promise<string | undefined> {
  try {
    const { stdout } = await execFileAsync(binary, ['--version'], { timeout: 15_000 });
    // "temporal version 1.5.1 (Server 1.29.1, UI 2.42.1)"
    return /version\s+(\S+)/.exec(stdout)?.[1];
  } catch {
    return undefined;
  }
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

export interface ResolvedCli {
  path: string;
  source: 'TEMPORAL_CLI' | 'PATH' | 'project';
}

/** The CLI to use, without building anything; undefined when none of the right version is found. */
export async function findTemporalCli(): Promise<ResolvedCli | undefined> {
  const fromEnv = process.env.TEMPORAL_CLI;
  if (fromEnv) {
    // An explicit choice is honoured whatever its version, but it has to run.
    if ((await temporalCliVersion(fromEnv)) === undefined) {
      throw new Error(`TEMPORAL_CLI=${fromEnv} does not run (\`${fromEnv} --version\` failed)`);
    }
    return { path: fromEnv, source: 'TEMPORAL_CLI' };
  }
  const fromPath = onPath('temporal');
  if (fromPath && (await temporalCliVersion(fromPath)) === TEMPORAL_CLI_VERSION) return { path: fromPath, source: 'PATH' };
  const local = join(LOCAL_TOOLS_BIN, 'temporal');
  if (existsSync(local) && (await temporalCliVersion(local)) === TEMPORAL_CLI_VERSION) return { path: local, source: 'project' };
  return undefined;
}

/** Like findTemporalCli, but fails with what to do when there is none. */
export async function requireTemporalCli(): Promise<ResolvedCli> {
  const found = await findTemporalCli();
  if (!found) {
    throw new Error(
      `Temporal CLI ${TEMPORAL_CLI_VERSION} not found: run \`npm run setup:temporal\` (builds it with Go), ` +
        'or set TEMPORAL_CLI to the path of a temporal binary',
    );
  }
  return found;
}

/** Neither a Temporal CLI nor a Go toolchain to build one. */
export class GoUnavailableError extends Error {}

/** Builds the pinned CLI into .tools/bin with `go install`, printing a progress line as it goes. */
export async function installTemporalCli(log: (line: string) => void): Promise<ResolvedCli> {
  const go = onPath('go');
  if (!go) {
    throw new GoUnavailableError(
      `Temporal CLI ${TEMPORAL_CLI_VERSION} is not installed and Go is not available to build it. ` +
        'Install Go (https://go.dev/dl/) and run `npm run setup:temporal` again, ' +
        'or install the Temporal CLI yourself and set TEMPORAL_CLI to its path.',
    );
  }
  mkdirSync(LOCAL_TOOLS_BIN, { recursive: true });
  const args = [
    'install',
    '-v',
    '-ldflags',
    `-X ${MODULE}/temporalcli.Version=${TEMPORAL_CLI_VERSION}`,
    `${MODULE}/cmd/temporal@v${TEMPORAL_CLI_VERSION}`,
  ];
  log(`building Temporal CLI ${TEMPORAL_CLI_VERSION} with ${go} (once per machine; a few minutes on 2 cores)`);
  const started = Date.now();
  let packagesBuilt = 0;
  const child = spawn(go, args, {
    env: { ...process.env, GOBIN: LOCAL_TOOLS_BIN },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let tail = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    // `go install -v` prints one package path per line as it compiles; "go: ..." lines are downloads.
    packagesBuilt += chunk.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('go:')).length;
    tail = (tail + chunk).slice(-4000);
  });
  const ticker = setInterval(() => {
    log(`  still building: ${packagesBuilt} packages compiled, ${Math.round((Date.now() - started) / 1000)} s`);
  }, 20_000);
  try {
    const code = await new Promise<number | null>((done, fail) => {
      child.on('error', fail);
      child.on('close', done);
    });
    if (code !== 0) throw new Error(`go install failed (exit ${code}):\n${tail.trim()}`);
  } finally {
    clearInterval(ticker);
  }
  const path = join(LOCAL_TOOLS_BIN, 'temporal');
  const version = await temporalCliVersion(path);
  if (version !== TEMPORAL_CLI_VERSION) throw new Error(`built ${path} but it reports version ${version ?? 'nothing'}`);
  log(`built Temporal CLI ${version} in ${Math.round((Date.now() - started) / 1000)} s: ${path}`);
  return { path, source: 'project' };
}
