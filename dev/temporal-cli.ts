/**
 * Finds the Temporal CLI that serves as rampflow's dev server, and builds it when there is none.
 *
 * Order: $TEMPORAL_CLI if set; else a `temporal` on PATH whose version is the pinned one; else the
 * project-local build in .tools/bin. Building uses the Go toolchain (dev/go-tools.ts), stamps the
 * version through -ldflags as the CLI's own release build does, and happens once per machine.
 */
import { buildGoTool, findLocalBuild, onPath, reportedVersion, type GoTool } from './go-tools';

export { GoUnavailableError } from './go-tools';

export const TEMPORAL_CLI_VERSION = '1.5.1';
const MODULE = 'github.com/temporalio/cli';
const TEMPORAL_CLI: GoTool = {
  label: 'Temporal CLI',
  version: TEMPORAL_CLI_VERSION,
  goPackage: `${MODULE}/cmd/temporal@v${TEMPORAL_CLI_VERSION}`,
  binaryName: 'temporal',
  ldflags: `-X ${MODULE}/temporalcli.Version=${TEMPORAL_CLI_VERSION}`,
};

export interface ResolvedCli {
  path: string;
  source: 'TEMPORAL_CLI' | 'PATH' | 'project';
}

/** The CLI to use, without building anything; undefined when none of the right version is found. */
export async function findTemporalCli(): Promise<ResolvedCli | undefined> {
  const fromEnv = process.env.TEMPORAL_CLI;
  if (fromEnv) {
    // An explicit choice is honoured whatever its version, but it has to run.
    if ((await reportedVersion(fromEnv)) === undefined) {
      throw new Error(`TEMPORAL_CLI=${fromEnv} does not run (\`${fromEnv} --version\` failed)`);
    }
    return { path: fromEnv, source: 'TEMPORAL_CLI' };
  }
  const fromPath = onPath('temporal');
  if (fromPath && (await reportedVersion(fromPath)) === TEMPORAL_CLI_VERSION) return { path: fromPath, source: 'PATH' };
  const local = await findLocalBuild(TEMPORAL_CLI);
  return local ? { path: local, source: 'project' } : undefined;
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

/** Builds the pinned CLI into .tools/bin with `go install`, printing a progress line as it goes. */
export async function installTemporalCli(log: (line: string) => void): Promise<ResolvedCli> {
  const path = await buildGoTool(
    TEMPORAL_CLI,
    log,
    'run `npm run setup:temporal` again, or install the Temporal CLI yourself and set TEMPORAL_CLI to its path.',
  );
  return { path, source: 'project' };
}
