/**
 * A private PostgreSQL instance for the cluster profile: its own data folder, one superuser with a
 * password, TCP on 127.0.0.1 only, no Unix socket (so it never meets the machine's own instance). It
 * runs as a child of this process and can be stopped and started again on the same data and port.
 *
 * PostgreSQL refuses to run as root, so when this process is root the data folder belongs to the
 * `postgres` user and initdb and the server run as that user.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { onPath } from './go-tools';
import { spawnLogged, waitUntilReady, type LoggedProcess } from './processes';

const execFileAsync = promisify(execFile);

export interface PostgresOptions {
  /** The data folder (created by initdb on first start, reused after). */
  dataDir: string;
  port: number;
  user: string;
  password: string;
  /** The server's own log; appended to across restarts. */
  logFile: string;
  /** PostgreSQL's bin folder; found when omitted (see findPostgresBin). */
  binDir?: string;
}

export interface PrivatePostgres {
  host: string;
  port: number;
  /** Stops the server (fast shutdown: open sessions are ended, the data is checkpointed). */
  stop(): Promise<void>;
  /** Starts it again on the same data and port. */
  start(): Promise<void>;
}

/** The folder of the `initdb` on PATH (through any symlink), else the newest of Debian's /usr/lib/postgresql/<major>/bin. */
export function findPostgresBin(): string {
  const onPathInitdb = onPath('initdb');
  if (onPathInitdb) return dirname(realpathSync(onPathInitdb));
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const found = majors.map((major) => join(root, major, 'bin')).find((dir) => existsSync(join(dir, 'initdb')));
  if (!found)
    throw new Error(
      'PostgreSQL is not installed: no initdb on PATH or under /usr/lib/postgresql/<version>/bin (Debian: apt-get install postgresql)',
    );
  return found;
}

/** The user and group PostgreSQL runs as: this process's own, or `postgres` when this process is root. */
async function runAs(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const [uid, gid] = await Promise.all(
      ['-u', '-g'].map(async (flag) => Number((await execFileAsync('id', [flag, 'postgres'])).stdout.trim())),
    );
    return { uid: uid!, gid: gid! };
  } catch {
    throw new Error('PostgreSQL does not run as root, and there is no `postgres` user to run it as');
  }
}

export async function startPostgres(options: PostgresOptions): Promise<PrivatePostgres> {
  const binDir = options.binDir ?? findPostgresBin();
  const user = await runAs();
  if (!existsSync(join(options.dataDir, 'PG_VERSION'))) await initdb(binDir, options, user);

  let server: LoggedProcess | undefined;
  const start = async () => {
    if (server) throw new Error('PostgreSQL is already running');
    server = spawnLogged(
      join(binDir, 'postgres'),
      [
        '-D',
        options.dataDir,
        '-p',
        String(options.port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
      ],
      options.logFile,
      { cwd: '/', ...user },
    );
    try {
      await waitUntilReady(`PostgreSQL on 127.0.0.1:${options.port}`, server, options.logFile, 60_000, () =>
        accepting(binDir, options.port),
      );
    } catch (error) {
      await stop();
      throw error;
    }
  };
  const stop = async () => {
    // SIGINT is PostgreSQL's fast shutdown; SIGTERM would wait for every client to leave.
    await server?.stop('SIGINT', 30_000);
    server = undefined;
  };
  await start();
  return { host: '127.0.0.1', port: options.port, start, stop };
}

async function initdb(
  binDir: string,
  options: PostgresOptions,
  user: { uid: number; gid: number } | undefined,
): Promise<void> {
  // initdb wants an empty folder; one left by a failed first start is not worth keeping.
  rmSync(options.dataDir, { recursive: true, force: true });
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const passwordFile = join(options.dataDir, '..', `.initdb-password-${process.pid}`);
  writeFileSync(passwordFile, `${options.password}\n`, { mode: 0o600 });
  if (user) {
    chownSync(options.dataDir, user.uid, user.gid);
    chownSync(passwordFile, user.uid, user.gid);
  }
  try {
    await execFileAsync(
      join(binDir, 'initdb'),
      [
        '-D',
        options.dataDir,
        '-U',
        options.user,
        `--pwfile=${passwordFile}`,
        '--auth=scram-sha-256',
        '-E',
        'UTF8',
        '--locale=C',
      ],
      { cwd: '/', timeout: 120_000, ...user },
    );
  } catch (error) {
    const detail = error instanceof Error && 'stderr' in error ? String(error.stderr).trim() : String(error);
    throw new Error(`initdb failed in ${options.dataDir}: ${detail}`);
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

/** Whether the server accepts connections (pg_isready over TCP). */
function accepting(binDir: string, port: number): Promise<boolean> {
  return execFileAsync(join(binDir, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port)]).then(
    () => true,
    () => false,
  );
}
