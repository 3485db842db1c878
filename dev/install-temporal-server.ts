/**
 * `npm run setup:cluster`: make sure the Temporal server and its SQL schema tool exist (for `npm run
 * cluster` and `npm run test:cluster`), building them with Go only when they do not.
 */
import { ensureServerTools, TEMPORAL_SERVER_VERSION } from './temporal-server-tools';

async function main(): Promise<void> {
  const log = (line: string) => process.stdout.write(`[setup:cluster] ${line}\n`);
  const tools = await ensureServerTools(log);
  log(`Temporal server ${TEMPORAL_SERVER_VERSION} ready: ${tools.server}`);
  log(`Temporal SQL schema tool ${TEMPORAL_SERVER_VERSION} ready: ${tools.sqlTool}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`[setup:cluster] ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
