/**
 * A Temporal dev server that keeps its state in a SQLite file in a temporary folder, so it can be
 * stopped and started again on the same port and file with every workflow's history intact.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../../dev/dev-server';
import { freePort } from '../../../dev/ports';

export interface TemporalOnFile {
  /** host:port; the same across restarts. */
  address: string;
  /** Stops the server (SIGTERM, as an operator or a supervisor would). */
  stop(): Promise<void>;
  /** Starts it again on the same port and database file. */
  start(): Promise<void>;
  /** Stops it for good and removes the database. */
  close(): Promise<void>;
}

export async function startTemporalOnFile(): Promise<TemporalOnFile> {
  const dir = mkdtempSync(join(tmpdir(), 'rampflow-fault-temporal-'));
  const port = await freePort();
  const dbFile = join(dir, 'temporal.db');
  let server: DevServer | undefined = await startDevServer({ port, headless: true, dbFile });
  const stop = async () => {
    await server?.stop();
    server = undefined;
  };
  return {
    address: server.address,
    stop,
    async start() {
      if (server) throw new Error('the dev server is already running');
      server = await startDevServer({ port, headless: true, dbFile });
    },
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
