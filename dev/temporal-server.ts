/**
 * The Temporal server of the cluster profile as a process: deploy/temporal-server/start.sh with the
 * environment deploy/temporal-server/rampflow.yaml reads. Its ports are chosen once, so a server
 * killed and started again comes back as the same cluster member.
 */
import { join, resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import { freePort, freePortBelow } from './ports';
import { spawnLogged, waitUntilReady, type LoggedProcess } from './processes';

const START_SCRIPT = join(resolve(__dirname, '..'), 'deploy', 'temporal-server', 'start.sh');
/** The server roles, each with a gRPC and a membership port (the frontend also an HTTP port). */
const ROLES = ['FRONTEND', 'HISTORY', 'MATCHING', 'WORKER'] as const;

export interface TemporalServerOptions {
  /** The temporal-server binary. */
  binary: string;
  /** The frontend's gRPC port, the one clients use. */
  port: number;
  database: { host: string; port: number; user: string; password: string };
  historyShards: number;
  logLevel: string;
  logFile: string;
}

export interface TemporalServer {
  address: string;
  /** Starts the process and waits until the frontend answers, or serves `namespace` when given. */
  start(namespace?: string): Promise<void>;
  /** SIGKILL: no graceful shutdown, shards not released. */
  kill(): Promise<void>;
  /** SIGTERM: the graceful stop. */
  stop(): Promise<void>;
  running(): boolean;
}

export async function temporalServer(options: TemporalServerOptions): Promise<TemporalServer> {
  const ports: Record<string, string> = {
    FRONTEND_GRPC_PORT: String(options.port),
    FRONTEND_HTTP_PORT: String(await freePort()),
  };
  for (const role of ROLES) {
    if (role !== 'FRONTEND') ports[`${role}_GRPC_PORT`] = String(await freePort());
    // Membership rows keep the port as a smallint.
    ports[`${role}_MEMBERSHIP_PORT`] = String(await freePortBelow(32_768));
  }
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TEMPORAL_SERVER: options.binary,
    POSTGRES_SEEDS: options.database.host,
    DB_PORT: String(options.database.port),
    POSTGRES_USER: options.database.user,
    POSTGRES_PWD: options.database.password,
    NUM_HISTORY_SHARDS: String(options.historyShards),
    BIND_ON_IP: '127.0.0.1',
    LOG_LEVEL: options.logLevel,
    ...ports,
  };
  const address = `127.0.0.1:${options.port}`;
  let current: LoggedProcess | undefined;
  const stop = async (signal: NodeJS.Signals) => {
    await current?.stop(signal, 20_000);
    current = undefined;
  };
  return {
    address,
    async start(namespace) {
      if (current) throw new Error('the Temporal server is already running');
      // The script execs the server, so this process is the server itself (a kill reaches it).
      current = spawnLogged('sh', [START_SCRIPT], options.logFile, { env });
      try {
        // Two minutes: a server killed outright has to take its shards back first.
        await waitUntilReady(`the Temporal server on ${address}`, current, options.logFile, 120_000, () =>
          answers(address, namespace),
        );
      } catch (error) {
        await stop('SIGKILL');
        throw error;
      }
    },
    kill: () => stop('SIGKILL'),
    stop: () => stop('SIGTERM'),
    running: () => current?.running() ?? false,
  };
}

/** Whether the frontend answers (its system info, or the namespace when one is given). */
async function answers(address: string, namespace: string | undefined): Promise<boolean> {
  try {
    const connection = await Connection.connect({ address, connectTimeout: 1_000 });
    try {
      if (namespace) await connection.workflowService.describeNamespace({ namespace });
      else await connection.workflowService.getSystemInfo({});
      return true;
    } finally {
      await connection.close();
    }
  } catch {
    return false;
  }
}
