/** `rampflow partner-api`: the HTTP API for partner backends (see docs/integrating/README.md). */
import type { Command } from 'commander';
import { runPartnerApi } from '../partner-api/process';

export function registerPartnerApiCommand(program: Command): void {
  program
    .command('partner-api')
    .description(
      'serve the HTTP API for partner backends (journeys, their deposits, operator actions; OpenAPI at /openapi.json) until SIGINT/SIGTERM; configured by PARTNER_API_* and TEMPORAL_* variables',
    )
    .option('--host <host>', 'interface to listen on', '0.0.0.0')
    .action(async (options: { host: string }) => {
      await runPartnerApi({ host: options.host });
    });
}
