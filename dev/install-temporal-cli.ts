/**
 * `npm run setup:temporal`: make sure the pinned Temporal CLI exists, building it only when it does not.
 *
 * `npm ci` runs it too (the `prepare` script) with `--if-possible`, so a fresh clone is ready for
 * `npm start` and `npm test`; there a machine without Go only gets a warning, because installing the
 * package to use its client library needs no dev server.
 */
import { findTemporalCli, GoUnavailableError, installTemporalCli, TEMPORAL_CLI_VERSION } from './temporal-cli';

async function main(ifPossible: boolean): Promise<void> {
  const log = (line: string) => process.stdout.write(`[setup:temporal] ${line}\n`);
  const found = await findTemporalCli();
  if (found) {
    log(`Temporal CLI ${TEMPORAL_CLI_VERSION} ready (${found.source}): ${found.path}`);
    return;
  }
  try {
    await installTemporalCli(log);
  } catch (error) {
    if (!(ifPossible && error instanceof GoUnavailableError)) throw error;
    log(`skipped: ${error.message}`);
  }
}

main(process.argv.includes('--if-possible')).catch((error: unknown) => {
  process.stderr.write(`[setup:temporal] ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
