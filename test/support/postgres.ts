/**
 * A private PostgreSQL for a test file (dev/postgres.ts: its own data folder, TCP on loopback, a free
 * port), with a fresh database per case. Stopped and removed by stop().
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../dev/ports';
import { startPostgres, type PrivatePostgres } from '../../dev/postgres';

export interface TestPostgres {
  server: PrivatePostgres;
  dataDir: string;
  /** A new, empty database; its URL. */
  createDatabase(): Promise<string>;
  stop(): Promise<void>;
}

const USER = 'rampflow';

export async function startTestPostgres(): Promise<TestPostgres> {
  const folder = mkdtempSync(join(tmpdir(), 'rampflow-pg-'));
  // PostgreSQL may run as another user (dev/postgres.ts), who must reach its folder inside this one.
  chmodSync(folder, 0o755);
  const password = randomBytes(12).toString('hex');
  const dataDir = join(folder, 'data');
  let server: PrivatePostgres;
  try {
    server = await startPostgres({
      dataDir,
      port: await freePort(),
      user: USER,
      password,
      logFile: join(folder, 'postgres.log'),
    });
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
  const url = (database: string) => `postgres://${USER}:${password}@${server.host}:${server.port}/${database}`;
  let databases = 0;
  return {
    server,
    dataDir,
    async createDatabase() {
      const name = `events_${process.pid}_${++databases}`;
      const admin = new pg.Client({ connectionString: url('postgres') });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return url(name);
    },
    async stop() {
      await server.stop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
