/**
 * `rampflow dev` (`npm start`): the local stack on embedded defaults. Today it runs the Temporal dev
 * server with its Web UI, keeping history in .data/ so it survives a restart; it stops everything
 * cleanly on Ctrl-C or SIGTERM.
 */
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { startDevServer } from '../dev/dev-server';

const PROJECT_ROOT = resolve(__dirname, '..');

interface DevOptions {
  port: string;
  uiPort: string;
  dbFile: string;
}

export function registerDevCommand(program: Command): void {
  program
    .command('dev')
    .description('run the local stack: the Temporal dev server with its Web UI (Ctrl-C stops it)')
    .option('--port <port>', 'Temporal gRPC port', '7233')
    .option('--ui-port <port>', 'Temporal Web UI port', '8233')
    .option('--db-file <path>', 'SQLite file that keeps workflow history across restarts', join(PROJECT_ROOT, '.data', 'temporal.db'))
    .action(async (options: DevOptions) => {
      await runDev(options);
    });
}

function parsePort(name: string, value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`${name} must be a port number, got '${value}'`);
  return port;
}

async function runDev(options: DevOptions): Promise<void> {
  const progress = (line: string) => process.stdout.write(`[rampflow dev] ${line}\n`);
  const port = parsePort('--port', options.port);
  const uiPort = parsePort('--ui-port', options.uiPort);

  progress(`starting the Temporal dev server on 127.0.0.1:${port} (history in ${options.dbFile})`);
  const server = await startDevServer({ port, uiPort, dbFile: options.dbFile });
  progress(`Temporal is up: gRPC ${server.address}, Web UI ${server.uiUrl}`);
  progress('running; press Ctrl-C to stop');

  const signal = await new Promise<NodeJS.Signals>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  progress(`${signal}: stopping`);
  await server.stop();
  progress('stopped');
}
