/** `rampflow codec-server`: decrypts payloads for the Web UI and the `temporal` CLI (docs/deploying/customer-data-and-keys.md). */
import type { Command } from 'commander';
import { runCodecServer } from '../codec/codec-server-process';

export function registerCodecServerCommand(program: Command): void {
  program
    .command('codec-server')
    .description(
      "serve Temporal's remote codec protocol for the Web UI and the temporal CLI until SIGINT/SIGTERM; configured by RAMPFLOW_PAYLOAD_KEYS and CODEC_SERVER_*",
    )
    .option('--host <host>', 'interface to listen on', '0.0.0.0')
    .action(async (options: { host: string }) => {
      await runCodecServer({ host: options.host });
    });
}
