/**
 * The cluster profile: rampflow's production topology on one machine, without Docker. In order:
 *
 * 1. a private PostgreSQL in `<dataDir>/postgres` (dev/postgres.ts);
 * 2. Temporal's persistence and visibility databases created or upgraded by deploy/temporal-schema.sh
 *    with the project's build of temporal-sql-tool;
 * 3. the Temporal server (every role in one process) from deploy/temporal-server/rampflow.yaml,
 *    started by deploy/temporal-server/start.sh;
 * 4. deploy/temporal-setup.sh: the namespace and rampflow's search attributes.
 *
 * The same server version, config file and scripts as docker-compose.yml; only the environment differs.
 * Everything lives in the data folder, so a second start reuses it. Logs go to `<dataDir>/logs`.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { freePort, freePortBelow } from './ports';
import { startPostgres, type PrivatePostgres } from './postgres';
import { lastLines, waitForExit } from './processes';
import { requireTemporalCli } from './temporal-cli';
import { ensureServerTools } from './temporal-server-tools';

const execFileAsync = promisify(execFile);

const PROJECT_ROOT = resolve(__dirname, '..');
const DEPLOY = join(PROJECT_ROOT, 'deploy');
/** PostgreSQL's superuser; local to the private instance, which listens on loopback only. */
const DB_USER = 'temporal';
const DB_PASSWORD = 'temporal';
/** The server roles, each with a gRPC and a membership port (the frontend also an HTTP port). */
const ROLES = ['FRONTEND', 'HISTORY', 'MATCHING', 'WORKER'] as const;

export interface ClusterOptions {
  /** Holds PostgreSQL's data, the logs and what the first start decided; reused by later starts. */
  dataDir: string;
  /** The frontend's gRPC port, the one clients use. */
  port: number;
  /** PostgreSQL's port; a free one when omitted. */
  postgresPort?: number;
  /** Fixed when the cluster is first created; a later start with another number is refused. */
  historyShards: number;
  namespace: string;
  /** The server's log level (its log is `<dataDir>/logs/temporal-server.log`). */
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  progress: (line: string) => void;
}

export interface TemporalCluster {
  address: string;
  namespace: string;
  historyShards: number;
  postgres: PrivatePostgres;
  /** No Web UI runs in this profile (docker-compose.yml adds temporalio/ui). */
  uiUrl: undefined;
  logDir: string;
  /** Ends the Temporal server outright (SIGKILL), as a crash or an OOM kill would. */
  killServer(): Promise<void>;
  /** Starts the server again on the same ports and databases, and waits until it serves the namespace. */
  startServer(): Promise<void>;
  /** Whether the server process is running (it was not stopped and has not exited by itself). */
  serverRunning(): boolean;
  /** Stops the server (SIGTERM), then PostgreSQL. */
  stop(): Promise<void>;
}

interface ClusterRecord {
  historyShards: number;
}

export async function startTemporalCluster(options: ClusterOptions): Promise<TemporalCluster> {
  const { progress, namespace } = options;
  const dataDir = resolve(options.dataDir);
  const logDir = join(dataDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  // PostgreSQL may run as another user (dev/postgres.ts), who must reach its folder inside this one.
  chmodSync(dataDir, 0o755);
  checkHistoryShards(dataDir, options.historyShards);

  const tools = await ensureServerTools(progress);
  const cli = await requireTemporalCli();

  const postgresPort = options.postgresPort ?? (await freePort());
  const firstStart = !existsSync(join(dataDir, 'postgres', 'PG_VERSION'));
  progress(`PostgreSQL on 127.0.0.1:${postgresPort} (${firstStart ? 'new data' : 'reusing the data'} in ${join(dataDir, 'postgres')})`);
  const postgres = await startPostgres({ dataDir: join(dataDir, 'postgres'), port: postgresPort, user: DB_USER, password: DB_PASSWORD, logFile: join(logDir, 'postgres.log') });

  const stoppers: (() => Promise<void>)[] = [() => postgres.stop()];
  const stopAll = async () => {
    for (const stopPart of stoppers.reverse()) await stopPart();
  };
  try {
    const dbEnv = { POSTGRES_SEEDS: postgres.host, DB_PORT: String(postgres.port), POSTGRES_USER: DB_USER, POSTGRES_PWD: DB_PASSWORD };
    progress('Temporal schemas (deploy/temporal-schema.sh)');
    await runScript('temporal-schema.sh', { ...dbEnv, TEMPORAL_SQL_TOOL: tools.sqlTool }, join(logDir, 'temporal-schema.log'));
    writeFileSync(join(dataDir, 'cluster.json'), `${JSON.stringify({ historyShards: options.historyShards } satisfies ClusterRecord)}\n`);

    const ports: Record<string, string> = { FRONTEND_GRPC_PORT: String(options.port), FRONTEND_HTTP_PORT: String(await freePort()) };
    for (const role of ROLES) {
      if (role !== 'FRONTEND') ports[`${role}_GRPC_PORT`] = String(await freePort());
      // Membership rows keep the port as a smallint.
      ports[`${role}_MEMBERSHIP_PORT`] = String(await freePortBelow(32_768));
    }
    const serverEnv = {
      ...dbEnv,
      ...ports,
      NUM_HISTORY_SHARDS: String(options.historyShards),
      BIND_ON_IP: '127.0.0.1',
      TEMPORAL_SERVER: tools.server,
      LOG_LEVEL: options.logLevel ?? 'warn',
    };
    const address = `127.0.0.1:${options.port}`;
    const serverLog = join(logDir, 'temporal-server.log');
    let server: { child: ChildProcess; exited: Promise<number | null> } | undefined;
    const startServer = async (waitForNamespace: boolean) => {
      if (server) throw new Error('the Temporal server is already running');
      const log = createWriteStream(serverLog, { flags: 'a' });
      // The script execs the server, so this child is the server itself (a kill reaches it).
      const child = spawn('sh', [join(DEPLOY, 'temporal-server', 'start.sh')], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...serverEnv },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.pipe(log, { end: false });
      child.stderr!.pipe(log, { end: false });
      const exited = waitForExit(child).finally(() => log.end());
      server = { child, exited };
      try {
        await waitUntilServing(address, waitForNamespace ? namespace : undefined, exited);
      } catch (error) {
        await stopServer('SIGKILL');
        throw new Error(`${error instanceof Error ? error.message : String(error)}\n${lastLines(serverLog, 15)}`);
      }
    };
    const stopServer = async (signal: 'SIGTERM' | 'SIGKILL') => {
      if (!server) return;
      const { child, exited } = server;
      server = undefined;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(signal);
        const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(killer);
      }
    };

    progress(`Temporal server ${address}, ${options.historyShards} history shards (deploy/temporal-server/rampflow.yaml; log ${serverLog})`);
    await startServer(false);
    stoppers.push(() => stopServer('SIGTERM'));
    progress(`namespace ${namespace} and rampflow's search attributes (deploy/temporal-setup.sh)`);
    await runScript('temporal-setup.sh', { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, TEMPORAL_CLI: cli.path }, join(logDir, 'temporal-setup.log'));
    await waitUntilSearchable(address, namespace);

    return {
      address,
      namespace,
      historyShards: options.historyShards,
      postgres,
      uiUrl: undefined,
      logDir,
      killServer: () => stopServer('SIGKILL'),
      startServer: () => startServer(true),
      serverRunning: () => server !== undefined && server.child.exitCode === null && server.child.signalCode === null,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** The shard count is fixed for a cluster's life: Temporal refuses to start with another one. */
function checkHistoryShards(dataDir: string, historyShards: number): void {
  const recordFile = join(dataDir, 'cluster.json');
  if (!existsSync(recordFile)) return;
  const record = JSON.parse(readFileSync(recordFile, 'utf8')) as ClusterRecord;
  if (record.historyShards !== historyShards) {
    throw new Error(
      `the cluster in ${dataDir} was created with ${record.historyShards} history shards and cannot change to ${historyShards}: ` +
        `start it with --history-shards ${record.historyShards}, or use a new --data-dir`,
    );
  }
}

/** Runs one of deploy/'s scripts, its output into a log file, failing with the log's end. */
async function runScript(script: string, env: Record<string, string>, logFile: string): Promise<void> {
  try {
    const { stdout, stderr } = await execFileAsync('sh', [join(DEPLOY, script)], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, timeout: 300_000 });
    writeFileSync(logFile, stdout + stderr);
  } catch (error) {
    const output = error instanceof Error && 'stdout' in error ? `${String(error.stdout)}${String((error as { stderr?: unknown }).stderr ?? '')}` : String(error);
    writeFileSync(logFile, output);
    throw new Error(`deploy/${script} failed:\n${output.trim().split('\n').slice(-15).join('\n')}`);
  }
}

/**
 * Polls the frontend until it answers (its health check, or the namespace when one is given), the
 * process dies, or two minutes pass. A server killed outright needs a while to take its shards back.
 */
async function waitUntilServing(address: string, namespace: string | undefined, exited: Promise<number | null>): Promise<void> {
  let exitCode: number | null | undefined;
  void exited.then((code) => {
    exitCode = code;
  });
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (exitCode !== undefined) throw new Error(`the Temporal server exited during start-up (exit ${exitCode})`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        if (namespace) await connection.workflowService.describeNamespace({ namespace });
        else await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`the Temporal server did not answer on ${address} within 120 s: ${String(error)}`);
      await new Promise((wake) => setTimeout(wake, 500));
    }
  }
}

/**
 * Waits until visibility accepts a query on rampflow's search attributes: the roles learn of newly
 * registered attributes from a cache, and a workflow that sets one they do not know yet fails its task.
 */
async function waitUntilSearchable(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      try {
        await connection.workflowService.listWorkflowExecutions({ namespace, query: "RampStage = 'ACTIVE' AND RampCustomerId = 'x' AND RampExternalId = 'x'", pageSize: 1 });
        return;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`visibility did not accept rampflow's search attributes within 120 s: ${String(error)}`);
        await new Promise((wake) => setTimeout(wake, 1_000));
      }
    }
  } finally {
    await connection.close();
  }
}
