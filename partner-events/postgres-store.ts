/**
 * The partner event store on PostgreSQL: production's, and the cluster profile's (which already runs
 * one). Any number of processes may append and read at once.
 *
 * One table of events (position = the partner-wide cursor, unique id, stream, sequence, type,
 * timestamp, the sealed body) and one of disabled endpoints, created at open if absent by numbered
 * migrations recorded in a schema version table. Bodies are sealed with the payload keys
 * (sealing.ts); ids, streams, types and positions stay readable for operators and indexes.
 *
 * Every failure to reach the database becomes a PartnerEventStoreUnavailableError (the pull API
 * answers 503, an appending activity retries). Messages never carry the connection string or a body.
 */
import pg from 'pg';
import type { PayloadKey } from '../config/env';
import { checkAppendBatch } from './append-batch';
import type { PartnerEvent, PartnerEventStream } from './catalogue';
import { cursorOf, positionOf } from './cursor';
import { pageLimit, sequenceFloor } from './page-limits';
import { PartnerEventSealer } from './sealing';
import type { DisabledEndpoint, PartnerEventCursor, PartnerEventPage, PartnerEventStore } from './store';
import { PartnerEventConflictError, PartnerEventStoreUnavailableError } from './store-errors';

export interface PostgresPartnerEventStoreOptions {
  /** postgres://user:password@host:port/database (PARTNER_EVENTS_DATABASE_URL). */
  connectionString: string;
  payloadKeys: readonly PayloadKey[];
  /** A reader (the partner API) never appends nor changes endpoints. */
  role: 'writer' | 'reader';
  /** Connections kept open; appends are serialized anyway, so a few suffice (default 4). */
  poolSize?: number;
  /** How long to wait for a connection, and for one statement, before answering "unavailable" (default 5 s and 10 s). */
  connectTimeoutMs?: number;
  statementTimeoutMs?: number;
}

/**
 * Advisory lock keys (pg_advisory_xact_lock(int, int)): a namespace of rampflow's own ('rflw') and
 * one lock per purpose. Transaction-scoped, so a crashed session can never leave one held.
 */
const LOCK_NAMESPACE = 0x72666c77;
const APPEND_LOCK = 1;
const MIGRATION_LOCK = 2;

const SCHEMA_VERSIONS_TABLE = 'partner_events_schema_versions';

/** Numbered migrations, applied in order, each once; only ever add to the end. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE partner_events (
     position bigserial PRIMARY KEY,
     id text NOT NULL UNIQUE,
     stream text NOT NULL,
     sequence integer NOT NULL,
     type text NOT NULL,
     "timestamp" timestamptz NOT NULL,
     body bytea NOT NULL,
     CONSTRAINT partner_events_stream_sequence UNIQUE (stream, sequence)
   );
   CREATE TABLE partner_event_disabled_endpoints (
     name text PRIMARY KEY,
     since timestamptz NOT NULL,
     reason text NOT NULL
   );`,
];

// Node's network errors and PostgreSQL's SQLSTATEs that mean "not reachable now", not "wrong".
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01' /* admin_shutdown */,
  '57P02' /* crash_shutdown */,
  '57P03' /* cannot_connect_now */,
  '53300' /* too_many_connections */,
  '57014' /* query_canceled: the statement timeout */,
]);
const UNREACHABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Connection ended unexpectedly/i;

function unavailableReason(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    (UNREACHABLE_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08'))
  )
    return code;
  if (UNREACHABLE_MESSAGES.test(error.message)) return error.message;
  return undefined;
}

/** The error as callers should see it: unavailability typed, anything else as it is. */
function asStoreError(error: unknown): unknown {
  if (error instanceof PartnerEventStoreUnavailableError) return error;
  const reason = unavailableReason(error);
  return reason === undefined ? error : new PartnerEventStoreUnavailableError(reason, { cause: error });
}

interface EventRow {
  position: string;
  id: string;
  stream: string;
  body: Buffer;
}

export async function openPostgresPartnerEventStore(
  options: PostgresPartnerEventStoreOptions,
): Promise<PartnerEventStore> {
  const store = new PostgresPartnerEventStore(options);
  try {
    await store.ready();
  } catch (error) {
    // A database that is down now is no reason not to start: each call tries the migration again and
    // answers "unavailable" until it is back. Anything else (credentials, a newer schema) stops here.
    if (!(error instanceof PartnerEventStoreUnavailableError)) {
      await store.close();
      throw error;
    }
  }
  return store;
}

class PostgresPartnerEventStore implements PartnerEventStore {
  private readonly pool: pg.Pool;
  private readonly sealer: PartnerEventSealer;
  private migrated: Promise<void> | undefined;

  constructor(private readonly options: PostgresPartnerEventStoreOptions) {
    this.sealer = new PartnerEventSealer(options.payloadKeys);
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolSize ?? 4,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      query_timeout: options.statementTimeoutMs ?? 10_000,
      idleTimeoutMillis: 30_000,
      application_name: `rampflow-partner-events-${options.role}`,
    });
    // An idle connection that breaks (the server restarted) must not crash the process: the pool drops
    // it, and the next call gets a fresh connection or a typed "unavailable".
    this.pool.on('error', () => {});
  }

  /** The schema, created or upgraded once per store (tried again after a failure). */
  ready(): Promise<void> {
    this.migrated ??= this.migrate().catch((error: unknown) => {
      this.migrated = undefined;
      throw asStoreError(error);
    });
    return this.migrated;
  }

  private async migrate(): Promise<void> {
    // Already current (the usual case): nothing to create, so a role without CREATE (a read-only
    // partner API) opens a database the worker migrated.
    const [table] = await this.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [
      SCHEMA_VERSIONS_TABLE,
    ]);
    if (table?.present) {
      const [known] = await this.query<{ version: number | null }>(
        `SELECT max(version) AS version FROM ${SCHEMA_VERSIONS_TABLE}`,
      );
      if (known?.version === MIGRATIONS.length) return;
    }
    await this.transaction(async (client) => {
      // Two processes starting at once would otherwise race on CREATE TABLE.
      await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_NAMESPACE, MIGRATION_LOCK]);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${SCHEMA_VERSIONS_TABLE} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const { rows } = await client.query<{ version: number | null }>(
        `SELECT max(version) AS version FROM ${SCHEMA_VERSIONS_TABLE}`,
      );
      const current = rows[0]?.version ?? 0;
      if (current > MIGRATIONS.length) {
        throw new Error(
          `the partner events schema is at version ${current}, newer than this rampflow knows (${MIGRATIONS.length}): run a newer rampflow`,
        );
      }
      for (let version = current + 1; version <= MIGRATIONS.length; version++) {
        await client.query(MIGRATIONS[version - 1]!);
        await client.query(`INSERT INTO ${SCHEMA_VERSIONS_TABLE} (version) VALUES ($1)`, [version]);
      }
    });
  }

  async append(stream: PartnerEventStream, events: readonly PartnerEvent[]): Promise<void> {
    this.mustWrite('append partner events');
    checkAppendBatch(stream, events);
    if (events.length === 0) return;
    // Sealed before the lock is taken, so the time appends are serialized for is only the inserts.
    const sealed = await Promise.all(events.map(async (event) => ({ event, body: await this.sealer.seal(event) })));
    await this.ready();
    await this.transaction(async (client) => {
      // Why a lock: a bigserial is drawn when a row is inserted, but transactions commit in any order.
      // Unserialized, a reader could see position 11 committed while 10 is still in flight, move its
      // cursor past 10, and never see it. Holding this lock from before the first insert until the
      // commit is visible (transaction-scoped locks are released after that) makes positions become
      // visible in order: whoever sees a position also sees every lower one.
      await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_NAMESPACE, APPEND_LOCK]);
      for (const { event, body } of sealed) {
        try {
          await client.query(
            'INSERT INTO partner_events (id, stream, sequence, type, "timestamp", body) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING',
            [event.id, stream, event.sequence, event.type, event.timestamp, body],
          );
        } catch (error) {
          if ((error as { constraint?: unknown }).constraint === 'partner_events_stream_sequence')
            throw new PartnerEventConflictError(stream, event.sequence, event.id);
          throw error;
        }
      }
    });
  }

  async after(cursor: PartnerEventCursor | undefined, limit: number): Promise<PartnerEventPage> {
    const position = positionOf(cursor);
    await this.ready();
    const rows = await this.query<EventRow>(
      'SELECT position, id, stream, body FROM partner_events WHERE position > $1 ORDER BY position LIMIT $2',
      [position.toString(), pageLimit(limit)],
    );
    const events = await Promise.all(
      rows.map(async (row) => ({ ...(await this.sealer.open(row.body, row)), cursor: cursorOf(row.position) })),
    );
    return { events, next: events.at(-1)?.cursor ?? cursorOf(position) };
  }

  async stream(stream: PartnerEventStream, afterSequence: number, limit: number): Promise<PartnerEvent[]> {
    await this.ready();
    const rows = await this.query<EventRow>(
      'SELECT position, id, stream, body FROM partner_events WHERE stream = $1 AND sequence > $2::bigint ORDER BY sequence LIMIT $3',
      [stream, sequenceFloor(afterSequence), pageLimit(limit)],
    );
    return Promise.all(rows.map((row) => this.sealer.open(row.body, row)));
  }

  async lastSequence(stream: PartnerEventStream): Promise<number> {
    await this.ready();
    const [row] = await this.query<{ last: string | null }>(
      'SELECT max(sequence) AS last FROM partner_events WHERE stream = $1',
      [stream],
    );
    return Number(row?.last ?? 0);
  }
  async sequencesOf(stream: PartnerEventStream, ids: readonly string[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    await this.ready();
    const rows = await this.query<{ id: string; sequence: string }>(
      'SELECT id, sequence FROM partner_events WHERE stream = $1 AND id = ANY($2::text[])',
      [stream, [...ids]],
    );
    return new Map(rows.map((row) => [row.id, Number(row.sequence)]));
  }

  async disabledEndpoints(): Promise<DisabledEndpoint[]> {
    await this.ready();
    const rows = await this.query<{ name: string; since: Date; reason: string }>(
      'SELECT name, since, reason FROM partner_event_disabled_endpoints ORDER BY name',
    );
    return rows.map((row) => ({ name: row.name, since: row.since.toISOString(), reason: row.reason }));
  }

  /** Disabling an endpoint already disabled keeps the first `since` and reason. */
  async disableEndpoint(name: string, reason: string): Promise<void> {
    this.mustWrite('disable an endpoint');
    await this.ready();
    await this.query(
      'INSERT INTO partner_event_disabled_endpoints (name, since, reason) VALUES ($1, now(), $2) ON CONFLICT (name) DO NOTHING',
      [name, reason],
    );
  }

  async enableEndpoint(name: string): Promise<void> {
    this.mustWrite('enable an endpoint');
    await this.ready();
    await this.query('DELETE FROM partner_event_disabled_endpoints WHERE name = $1', [name]);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private mustWrite(what: string): void {
    if (this.options.role !== 'writer')
      throw new Error(`cannot ${what}: this partner event store was opened as a reader`);
  }

  private async query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
    try {
      return (await this.pool.query<R>(text, values)).rows;
    } catch (error) {
      throw asStoreError(error);
    }
  }

  private async transaction(work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw asStoreError(error);
    }
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      await work(client);
      await client.query('COMMIT');
    } catch (error) {
      // A connection that failed mid-transaction is thrown away (its session, and any lock it held,
      // end with it); otherwise the transaction is rolled back and the connection reused.
      if (unavailableReason(error) !== undefined) broken = error as Error;
      else await client.query('ROLLBACK').catch((rollbackError: unknown) => (broken = rollbackError as Error));
      throw asStoreError(error);
    } finally {
      client.release(broken ?? false);
    }
  }
}
