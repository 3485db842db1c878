/**
 * The Temporal server and its SQL schema tool, for the cluster profile (`npm run cluster`), built from
 * the same server module version the pinned Temporal CLI embeds, so the dev server, the cluster and
 * the compose images run one Temporal version. Found or built like the CLI (dev/go-tools.ts): the
 * project's tools folder, once per machine.
 */
import { buildGoTool, findLocalBuild, type GoTool } from './go-tools';

/** The server version inside Temporal CLI 1.5.1 (`temporal --version`), and of docker-compose.yml's images. */
export const TEMPORAL_SERVER_VERSION = '1.29.1';

const MODULE = `go.temporal.io/server`;
export const TEMPORAL_SERVER: GoTool = {
  label: 'Temporal server',
  version: TEMPORAL_SERVER_VERSION,
  goPackage: `${MODULE}/cmd/server@v${TEMPORAL_SERVER_VERSION}`,
  binaryName: 'temporal-server',
};
export const TEMPORAL_SQL_TOOL: GoTool = {
  label: 'Temporal SQL schema tool',
  version: TEMPORAL_SERVER_VERSION,
  goPackage: `${MODULE}/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`,
  binaryName: 'temporal-sql-tool',
};

export interface ServerTools {
  server: string;
  sqlTool: string;
}

const HINT = 'run `npm run setup:cluster` again.';

/** Both tools, or undefined when either is missing. */
export async function findServerTools(): Promise<ServerTools | undefined> {
  const [server, sqlTool] = await Promise.all([findLocalBuild(TEMPORAL_SERVER), findLocalBuild(TEMPORAL_SQL_TOOL)]);
  return server && sqlTool ? { server, sqlTool } : undefined;
}

/** Both tools, building whichever is missing (one after the other: each build uses every core). */
export async function ensureServerTools(log: (line: string) => void): Promise<ServerTools> {
  const server = (await findLocalBuild(TEMPORAL_SERVER)) ?? (await buildGoTool(TEMPORAL_SERVER, log, HINT));
  const sqlTool = (await findLocalBuild(TEMPORAL_SQL_TOOL)) ?? (await buildGoTool(TEMPORAL_SQL_TOOL, log, HINT));
  return { server, sqlTool };
}
