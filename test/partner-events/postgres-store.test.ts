/**
 * The PostgreSQL store on a real PostgreSQL (a private instance from /usr/lib/postgresql/<major>/bin,
 * test/support/postgres.ts): the shared contract, each case on a database of its own, with separate
 * pools appending at once; then what only PostgreSQL has: the migration (idempotent, concurrent,
 * versioned) and a database that cannot be reached.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../dev/ports';
import { openPostgresPartnerEventStore } from '../../partner-events/postgres-store';
import { PartnerEventStoreUnavailableError } from '../../partner-events/store-errors';
import { startTestPostgres, type TestPostgres } from '../support/postgres';
import { customerEvents, customerStream } from '../support/partner-events';
import { describeStoreContract, payloadKeys, type StoreSite } from './store-contract';

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startTestPostgres();
}, 120_000);
// Stopping checkpoints every case's database: several seconds.
afterAll(async () => {
  await postgres?.stop();
}, 60_000);

/** Every file of a database's folder and the WAL, after a checkpoint: what lies on the disk. */
async function databaseFiles(url: string): Promise<Buffer> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let oid: string;
  try {
    await client.query('CHECKPOINT');
    oid = String(
      (await client.query<{ oid: string }>('SELECT oid FROM pg_database WHERE datname = current_database()')).rows[0]!
        .oid,
    );
  } finally {
    await client.end();
  }
  const files = [join(postgres.dataDir, 'base', oid), join(postgres.dataDir, 'pg_wal')].flatMap((dir) =>
    readdirSync(dir)
      .map((name) => join(dir, name))
      .filter((path) => statSync(path).isFile()),
  );
  return Buffer.concat(files.map((path) => readFileSync(path)));
}

async function postgresSite(): Promise<StoreSite> {
  const connectionString = await postgres.createDatabase();
  return {
    open: (role, keys = payloadKeys('k1')) =>
      openPostgresPartnerEventStore({ connectionString, payloadKeys: keys, role, poolSize: 2 }),
    // Separate pools, as separate worker processes would have.
    concurrentWriters: (count, keys) =>
      Promise.all(
        Array.from({ length: count }, () =>
          openPostgresPartnerEventStore({ connectionString, payloadKeys: keys, role: 'writer', poolSize: 2 }),
        ),
      ),
    bytesAtRest: () => databaseFiles(connectionString),
  };
}

describeStoreContract('PostgreSQL store', postgresSite);

describe('the PostgreSQL store', () => {
  const keys = payloadKeys('k1');

  it('creates its tables once, whoever opens first and however many open at once, and records the schema version', async () => {
    const connectionString = await postgres.createDatabase();
    const stores = await Promise.all(
      Array.from({ length: 4 }, (_, n) =>
        openPostgresPartnerEventStore({ connectionString, payloadKeys: keys, role: n === 0 ? 'writer' : 'reader' }),
      ),
    );
    await stores[0]!.append(customerStream('m'), customerEvents('m', 1));
    const again = await openPostgresPartnerEventStore({ connectionString, payloadKeys: keys, role: 'reader' });
    expect((await again.after(undefined, 10)).events).toHaveLength(1);
    for (const store of [...stores, again]) await store.close();

    const client = new pg.Client({ connectionString });
    await client.connect();
    try {
      expect((await client.query('SELECT version FROM partner_events_schema_versions')).rows).toEqual([{ version: 1 }]);
      // A database a newer rampflow migrated further is not touched.
      await client.query('INSERT INTO partner_events_schema_versions (version) VALUES (99)');
    } finally {
      await client.end();
    }
    await expect(
      openPostgresPartnerEventStore({ connectionString, payloadKeys: keys, role: 'reader' }),
    ).rejects.toThrow(/schema is at version 99, newer than this rampflow knows \(1\)/);
  });

  it('lets a role that may only read open a database the writer migrated', async () => {
    const connectionString = await postgres.createDatabase();
    const writer = await openPostgresPartnerEventStore({ connectionString, payloadKeys: keys, role: 'writer' });
    await writer.append(customerStream('ro'), customerEvents('ro', 2));
    const role = `reader_${process.pid}`;
    const admin = new pg.Client({ connectionString });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'read-only'`);
      await admin.query(`GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${role}`);
    } finally {
      await admin.end();
    }
    const url = new URL(connectionString);
    url.username = role;
    url.password = 'read-only';
    const reader = await openPostgresPartnerEventStore({
      connectionString: url.toString(),
      payloadKeys: keys,
      role: 'reader',
    });
    expect((await reader.after(undefined, 10)).events).toHaveLength(2);
    await reader.close();
    await writer.close();
  });

  it('answers "unavailable" while the database cannot be reached, without the URL, and recovers when it is back', async () => {
    const port = await freePort();
    const password = 'do-not-echo-this-password';
    const nowhere = await openPostgresPartnerEventStore({
      connectionString: `postgres://rampflow:${password}@127.0.0.1:${port}/events`,
      payloadKeys: keys,
      role: 'reader',
      connectTimeoutMs: 1_000,
    });
    const failure = await nowhere.after(undefined, 10).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failure).toBeInstanceOf(PartnerEventStoreUnavailableError);
    expect(failure!.message).not.toContain(password);
    await expect(nowhere.append(customerStream('x'), [])).rejects.toThrow(/opened as a reader/);
    await nowhere.close();

    // The shared server stopped and started again: the same store answers "unavailable", then reads.
    const connectionString = await postgres.createDatabase();
    const writer = await openPostgresPartnerEventStore({
      connectionString,
      payloadKeys: keys,
      role: 'writer',
      connectTimeoutMs: 1_000,
    });
    await writer.append(customerStream('r'), customerEvents('r', 1));
    await postgres.server.stop();
    try {
      await expect(writer.after(undefined, 10)).rejects.toBeInstanceOf(PartnerEventStoreUnavailableError);
      await expect(writer.append(customerStream('r'), customerEvents('r', 1, { from: 2 }))).rejects.toBeInstanceOf(
        PartnerEventStoreUnavailableError,
      );
    } finally {
      await postgres.server.start();
    }
    await writer.append(customerStream('r'), customerEvents('r', 1, { from: 2 }));
    expect((await writer.after(undefined, 10)).events).toHaveLength(2);
    await writer.close();
  });
});
