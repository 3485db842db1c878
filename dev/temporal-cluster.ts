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
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { freePort } from './ports';
import { startPostgres, type PrivatePostgres } from './postgres';
import { requireTemporalCli } from './temporal-cli';
import { temporalServer } from './temporal-server';
import { ensureServerTools } from './temporal-server-tools';

const execFileAsync = promisify(execFile);

const PROJECT_ROOT = resolve(__dirname, '..');
const DEPLOY = join(PROJECT_ROOT, 'deploy');
/** PostgreSQL's superuser; local to the private instance, which listens on loopback only. */
const DB_USER = 'temporal';
const DB_PASSWORD = 'temporal';

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
  progress(
    `PostgreSQL on 127.0.0.1:${postgresPort} (${firstStart ? 'new data' : 'reusing the data'} in ${join(dataDir, 'postgres')})`,
  );
  const postgres = await startPostgres({
    dataDir: join(dataDir, 'postgres'),
    port: postgresPort,
    user: DB_USER,
    password: DB_PASSWORD,
    logFile: join(logDir, 'postgres.log'),
  });

  const stoppers: (() => Promise<void>)[] = [() => postgres.stop()];
  const stopAll = async () => {
    for (const stopPart of stoppers.reverse()) await stopPart();
  };
  try {
    progress('Temporal schemas (deploy/temporal-schema.sh)');
    const database = { host: postgres.host, port: postgres.port, user: DB_USER, password: DB_PASSWORD };
    const databaseEnv = {
      POSTGRES_SEEDS: database.host,
      DB_PORT: String(database.port),
      POSTGRES_USER: database.user,
      POSTGRES_PWD: database.password,
    };
    await runScript(
      'temporal-schema.sh',
      { ...databaseEnv, TEMPORAL_SQL_TOOL: tools.sqlTool },
      join(logDir, 'temporal-schema.log'),
    );
    writeFileSync(
      join(dataDir, 'cluster.json'),
      `${JSON.stringify({ historyShards: options.historyShards } satisfies ClusterRecord)}\n`,
    );

    const serverLog = join(logDir, 'temporal-server.log');
    const server = await temporalServer({
      binary: tools.server,
      port: options.port,
      database,
      historyShards: options.historyShards,
      logLevel: options.logLevel ?? 'warn',
      logFile: serverLog,
    });
    progress(
      `Temporal server ${server.address}, ${options.historyShards} history shards (deploy/temporal-server/rampflow.yaml; log ${serverLog})`,
    );
    stoppers.push(() => server.stop());
    await server.start();

    progress(`namespace ${namespace} and rampflow's search attributes (deploy/temporal-setup.sh)`);
    await runScript(
      'temporal-setup.sh',
      { TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: namespace, TEMPORAL_CLI: cli.path },
      join(logDir, 'temporal-setup.log'),
    );
    await waitUntilSearchable(server.address, namespace);

    return {
      address: server.address,
      namespace,
      historyShards: options.historyShards,
      postgres,
      uiUrl: undefined,
      logDir,
      killServer: () => server.kill(),
      startServer: () => server.start(namespace),
      serverRunning: () => server.running(),
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
    const { stdout, stderr } = await execFileAsync('sh', [join(DEPLOY, script)], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      timeout: 300_000,
    });
    writeFileSync(logFile, stdout + stderr);
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    const output = error instanceof Error && stdout !== undefined ? `${stdout}${stderr ?? ''}` : String(error);
    writeFileSync(logFile, output);
    throw new Error(`deploy/${script} failed:\n${output.trim().split('\n').slice(-15).join('\n')}`);
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
        await connection.workflowService.listWorkflowExecutions({
          namespace,
          query:
            "RampStage = 'ACTIVE' AND RampCustomerId = 'x' AND RampExternalId = 'x' AND RampStageSince < '2000-01-01T00:00:00Z'",
          pageSize: 1,
        });
        return;
      } catch (error) {
        if (Date.now() > deadline)
          throw new Error(`visibility did not accept rampflow's search attributes within 120 s: ${String(error)}`);
        await new Promise((wake) => setTimeout(wake, 1_000));
      }
    }
  } finally {
    await connection.close();
  }
}
