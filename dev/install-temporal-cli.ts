/** `npm run setup:temporal`: make sure the pinned Temporal CLI exists, building it only when it does not. */
import { findTemporalCli, installTemporalCli, TEMPORAL_CLI_VERSION } from './temporal-cli';

async function main(): Promise<void> {
  const log = (line: string) => process.stdout.write(`[setup:temporal] ${line}\n`);
  const found = await findTemporalCli();
  if (found) {
    log(`Temporal CLI ${TEMPORAL_CLI_VERSION} ready (${found.source}): ${found.path}`);
    return;
  }
  await installTemporalCli(log);
}

main().catch((error: unknown) => {
  process.stderr.write(`[setup:temporal] ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
