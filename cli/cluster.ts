/**
 * `rampflow cluster` (`npm run cluster`): the production topology on this machine, a Temporal server
 * on PostgreSQL (dev/temporal-cluster.ts), until Ctrl-C. Builds the server and its SQL tool with Go
 * the first time (once per machine); keeps its data in a folder, so the next start reuses it.
 */
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { startTemporalCluster, type ClusterOptions } from '../dev/temporal-cluster';
import { parsePort } from './options';

const PROJECT_ROOT = resolve(__dirname, '..');
export const DEFAULT_CLUSTER_DATA_DIR = join(PROJECT_ROOT, '.data', 'cluster');

interface ClusterFlags {
  port: string;
  postgresPort?: string;
  dataDir: string;
  historyShards: string;
  namespace: string;
  logLevel: string;
}

const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

export function registerClusterCommand(program: Command): void {
  program
    .command('cluster')
    .description(
      'run a Temporal server on a private PostgreSQL (the production topology, without Docker) until Ctrl-C; a second start reuses the data',
    )
    .option('--port <port>', 'Temporal frontend gRPC port', '7233')
    .option('--postgres-port <port>', 'PostgreSQL port (default: a free one)')
    .option('--data-dir <path>', "PostgreSQL's data and the logs", DEFAULT_CLUSTER_DATA_DIR)
    .option('--history-shards <n>', 'history shards; fixed when the cluster is first created', '4')
    .option('--namespace <name>', 'the namespace deploy/temporal-setup.sh creates', 'default')
    .option('--log-level <level>', `the server's log level (${LOG_LEVELS.join(', ')})`, 'warn')
    .action(async (flags: ClusterFlags) => {
      await runCluster(flags);
    });
}

/** Turns the shared flags into the cluster's options (also used by `rampflow dev --cluster`). */
export function clusterOptions(
  flags: Partial<ClusterFlags> & { port: string },
  progress: (line: string) => void,
): ClusterOptions {
  const historyShards = Number(flags.historyShards ?? '4');
  if (!Number.isInteger(historyShards) || historyShards < 1)
    throw new Error(`--history-shards must be a positive whole number, got '${flags.historyShards}'`);
  const logLevel = LOG_LEVELS.find((level) => level === (flags.logLevel ?? 'warn'));
  if (!logLevel) throw new Error(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got '${flags.logLevel}'`);
  return {
    dataDir: flags.dataDir ?? DEFAULT_CLUSTER_DATA_DIR,
    port: parsePort('--port', flags.port),
    ...(flags.postgresPort ? { postgresPort: parsePort('--postgres-port', flags.postgresPort) } : {}),
    historyShards,
    namespace: flags.namespace ?? 'default',
    logLevel,
    progress,
  };
}

async function runCluster(flags: ClusterFlags): Promise<void> {
  const progress = (line: string) => process.stdout.write(`[rampflow cluster] ${line}\n`);
  const options = clusterOptions(flags, progress);
  const stopRequested = new Promise<NodeJS.Signals>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  const starting = startTemporalCluster(options);
  const first = await Promise.race([starting, stopRequested]);
  if (typeof first === 'string') {
    // Stopped while starting: a terminal's Ctrl-C also reached PostgreSQL and the server, so the start
    // fails at once; a SIGTERM reached only this process, so let the start finish and stop it all.
    progress(`${first}: stopping once the part being started is up`);
    await starting.then(
      (cluster) => cluster.stop(),
      () => undefined,
    );
    progress('stopped');
    return;
  }
  const cluster = first;
  try {
    progress(
      `ready: TEMPORAL_ADDRESS=${cluster.address} TEMPORAL_NAMESPACE=${cluster.namespace} (${cluster.historyShards} history shards, PostgreSQL on ${cluster.postgres.host}:${cluster.postgres.port}, logs in ${cluster.logDir})`,
    );
    progress('press Ctrl-C to stop');
    progress(`${await stopRequested}: stopping`);
  } finally {
    await cluster.stop();
    progress('stopped');
  }
}
