/**
 * The embedded partner event store: the dev stack's default, so `npm start` keeps partner events
 * without a database to install. Production and the cluster profile use PostgreSQL
 * (postgres-store.ts); PARTNER_EVENTS_DATABASE_URL switches.
 *
 * A folder (PARTNER_EVENTS_DIR, mode 0700) holding:
 * - `events.jsonl`, an append-only log, one event a line (file-log-index.ts), fsync'd before an
 *   append returns. Positions count 1, 2, 3… in the order lines were written, which is the order every
 *   reader sees them in, so cursors never skip.
 * - `writer.lock`: the one writer's pid and folder, held open while it writes (file-writer-lock.ts). A
 *   second writer is refused; a lock copied in with the folder is taken over.
 * - `disabled-endpoints.json`, replaced whole (written aside, fsync'd, renamed) on each change.
 *
 * Any number of readers, in any process (the partner API runs apart from the worker that writes):
 * each picks up new complete lines by byte offset before it answers. A crash mid-append leaves at
 * most a torn last line; the writer cuts it off at open, and nothing written before is lost. A batch
 * torn that way keeps its first events (appends are idempotent, so the retry adds the rest).
 *
 * Limits, by design: one writing process; every event's place (not its body) is indexed in memory
 * and the log is read once at open, so it suits development's thousands of events, not a partner's
 * lifetime; a network file system's locking and fsync are not relied on.
 */
import { constants } from 'node:fs';
import { mkdir, open, readFile, rename, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { PayloadKey } from '../config/env';
import { checkAppendBatch } from './append-batch';
import type { PartnerEvent, PartnerEventStream } from './catalogue';
import { cursorOf, positionOf } from './cursor';
import { LogIndex, logLine, parseLogLine, type IndexedEvent } from './file-log-index';
import { acquireWriterLock } from './file-writer-lock';
import { pageLimit, sequenceFloor } from './page-limits';
import { PartnerEventSealer } from './sealing';
import type { DisabledEndpoint, PartnerEventCursor, PartnerEventPage, PartnerEventStore } from './store';
import { PartnerEventConflictError } from './store-errors';

export interface FilePartnerEventStoreOptions {
  /** The folder of the log (PARTNER_EVENTS_DIR); a writer creates it. */
  dir: string;
  payloadKeys: readonly PayloadKey[];
  /** One writer (the worker); readers (the partner API) never append nor change endpoints. */
  role: 'writer' | 'reader';
}

export const LOG_FILE = 'events.jsonl';
export const LOCK_FILE = 'writer.lock';
export const DISABLED_ENDPOINTS_FILE = 'disabled-endpoints.json';

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

export async function openFilePartnerEventStore(options: FilePartnerEventStoreOptions): Promise<PartnerEventStore> {
  if (options.role === 'reader') return new FilePartnerEventStore(options, undefined, undefined);
  await mkdir(options.dir, { recursive: true, mode: 0o700 });
  const release = acquireWriterLock(join(options.dir, LOCK_FILE));
  try {
    const logPath = join(options.dir, LOG_FILE);
    const existed = await stat(logPath).then(
      () => true,
      (error: unknown) => (isMissing(error) ? false : Promise.reject(error)),
    );
    const log = await open(logPath, 'a+', 0o600);
    // A new file's name must survive a crash as well as its contents.
    if (!existed) await syncFolder(options.dir);
    const store = new FilePartnerEventStore(options, log, release);
    try {
      await store.repairAndIndex();
    } catch (error) {
      await log.close();
      throw error;
    }
    return store;
  } catch (error) {
    release();
    throw error;
  }
}

class FilePartnerEventStore implements PartnerEventStore {
  private readonly sealer: PartnerEventSealer;
  private readonly logPath: string;
  private index = new LogIndex();
  /** Appends, endpoint changes and catching up run one at a time, so offsets and positions stay consistent. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly options: FilePartnerEventStoreOptions,
    private log: FileHandle | undefined,
    private readonly releaseLock: (() => void) | undefined,
  ) {
    this.sealer = new PartnerEventSealer(options.payloadKeys);
    this.logPath = join(options.dir, LOG_FILE);
  }

  /** The writer's open: index every complete line, and cut off a torn last one. */
  async repairAndIndex(): Promise<void> {
    const log = this.log!;
    const { size } = await log.stat();
    const bad = await this.index.scan(log, size);
    if (bad !== undefined) await this.refuseDamageBeforeTheEnd(log, bad, size);
    if (size > this.index.readOffset) {
      await log.truncate(this.index.readOffset);
      await log.sync();
    }
  }

  async append(stream: PartnerEventStream, events: readonly PartnerEvent[]): Promise<void> {
    this.mustWrite('append partner events');
    checkAppendBatch(stream, events);
    const sealed = await Promise.all(events.map(async (event) => ({ event, body: await this.sealer.seal(event) })));
    await this.serialized(async () => {
      const log = this.log!;
      const lines: { line: string; event: PartnerEvent; position: number }[] = [];
      const batchIds = new Set<string>();
      let position = this.index.lastPosition;
      for (const { event, body } of sealed) {
        if (this.index.has(event.id) || batchIds.has(event.id)) continue;
        if (this.index.atSequence(stream, event.sequence) !== undefined)
          throw new PartnerEventConflictError(stream, event.sequence, event.id);
        batchIds.add(event.id);
        position += 1;
        lines.push({ line: logLine(event, stream, position, body), event, position });
      }
      if (lines.length === 0) return;
      const start = this.index.readOffset;
      const bytes = Buffer.from(lines.map(({ line }) => line).join(''), 'utf8');
      try {
        for (let written = 0; written < bytes.length;)
          written += (await log.write(bytes, written, bytes.length - written)).bytesWritten;
        await log.sync();
      } catch (error) {
        // Nothing of a failed append may stay behind (disk full): the index would not know of it.
        await log.truncate(start).catch(() => {});
        throw error;
      }
      let offset = start;
      for (const { line, event, position: at } of lines) {
        const length = Buffer.byteLength(line, 'utf8');
        this.index.add({ position: at, id: event.id, stream, sequence: event.sequence, offset, length: length - 1 });
        offset += length;
      }
      this.index.readOffset = offset;
    });
  }

  async after(cursor: PartnerEventCursor | undefined, limit: number): Promise<PartnerEventPage> {
    const position = positionOf(cursor);
    const size = pageLimit(limit);
    // Positions here are line counts: one beyond JavaScript's safe integers has nothing after it.
    if (position > BigInt(Number.MAX_SAFE_INTEGER)) return { events: [], next: cursorOf(position) };
    const events = await this.serialized(async () => {
      await this.catchUp();
      return this.read(this.index.afterPosition(Number(position), size));
    });
    const page = events.map(({ entry, event }) => ({ ...event, cursor: cursorOf(entry.position) }));
    return { events: page, next: page.at(-1)?.cursor ?? cursorOf(position) };
  }

  async stream(stream: PartnerEventStream, afterSequence: number, limit: number): Promise<PartnerEvent[]> {
    const floor = sequenceFloor(afterSequence);
    const size = pageLimit(limit);
    const events = await this.serialized(async () => {
      await this.catchUp();
      return this.read(this.index.afterSequence(stream, floor, size));
    });
    return events.map(({ event }) => event);
  }

  async lastSequence(stream: PartnerEventStream): Promise<number> {
    return this.serialized(async () => {
      await this.catchUp();
      return this.index.lastSequence(stream);
    });
  }

  async sequencesOf(stream: PartnerEventStream, ids: readonly string[]): Promise<Map<string, number>> {
    return this.serialized(async () => {
      await this.catchUp();
      const found = new Map<string, number>();
      for (const id of ids) {
        const entry = this.index.byEventId(id);
        if (entry?.stream === stream) found.set(id, entry.sequence);
      }
      return found;
    });
  }

  async disabledEndpoints(): Promise<DisabledEndpoint[]> {
    try {
      return JSON.parse(await readFile(join(this.options.dir, DISABLED_ENDPOINTS_FILE), 'utf8')) as DisabledEndpoint[];
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
  }

  /** Disabling an endpoint already disabled keeps the first `since` and reason. */
  async disableEndpoint(name: string, reason: string): Promise<void> {
    this.mustWrite('disable an endpoint');
    await this.serialized(async () => {
      const endpoints = await this.disabledEndpoints();
      if (endpoints.some((endpoint) => endpoint.name === name)) return;
      const next = [...endpoints, { name, since: new Date().toISOString(), reason }].sort((a, b) =>
        a.name.localeCompare(b.name),
      );
      await this.writeDisabledEndpoints(next);
    });
  }

  async enableEndpoint(name: string): Promise<void> {
    this.mustWrite('enable an endpoint');
    await this.serialized(async () => {
      const endpoints = await this.disabledEndpoints();
      if (!endpoints.some((endpoint) => endpoint.name === name)) return;
      await this.writeDisabledEndpoints(endpoints.filter((endpoint) => endpoint.name !== name));
    });
  }

  async close(): Promise<void> {
    await this.queue;
    await this.log?.close();
    this.log = undefined;
    this.releaseLock?.();
  }

  private mustWrite(what: string): void {
    if (this.options.role !== 'writer')
      throw new Error(`cannot ${what}: this partner event store was opened as a reader`);
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => {});
    return run;
  }

  /** A reader's step before answering: index the lines the writer added since the last one. */
  private async catchUp(): Promise<void> {
    if (this.options.role === 'writer') return; // the writer indexes its own appends
    if (this.log === undefined) {
      try {
        this.log = await open(this.logPath, 'r');
      } catch (error) {
        if (isMissing(error)) return; // no writer has started yet: no events
        throw error;
      }
    }
    const [opened, onDisk] = await Promise.all([
      this.log.stat(),
      stat(this.logPath).catch((error: unknown) => (isMissing(error) ? undefined : Promise.reject(error))),
    ]);
    // The log was removed or replaced (a dev stack wiped its data): start over on the new one.
    if (onDisk === undefined || onDisk.ino !== opened.ino || opened.size < this.index.readOffset) {
      await this.log.close();
      this.log = undefined;
      this.index = new LogIndex();
      if (onDisk !== undefined) await this.catchUp();
      return;
    }
    if (opened.size === this.index.readOffset) return;
    const bad = await this.index.scan(this.log, opened.size);
    // A bad last line is a torn one the writer will cut off when it starts: not there yet, for a reader.
    if (bad !== undefined) await this.refuseDamageBeforeTheEnd(this.log, bad, opened.size);
  }

  /** A damaged line is only expected last (a torn write); one followed by others means the log was altered. */
  private async refuseDamageBeforeTheEnd(log: FileHandle, offset: number, size: number): Promise<void> {
    const rest = Buffer.alloc(size - offset);
    await log.read(rest, 0, rest.length, offset);
    const completeLines = rest.filter((byte) => byte === 0x0a).length;
    if (completeLines > 1)
      throw new Error(
        `the partner events log ${this.logPath} has a damaged line at byte ${offset}, with events after it: restore it from a copy`,
      );
  }

  private async read(entries: readonly IndexedEvent[]): Promise<{ entry: IndexedEvent; event: PartnerEvent }[]> {
    const log = this.log;
    if (entries.length === 0 || log === undefined) return [];
    return Promise.all(
      entries.map(async (entry) => {
        const line = Buffer.alloc(entry.length);
        await log.read(line, 0, entry.length, entry.offset);
        const record = parseLogLine(line);
        if (record === undefined || record.id !== entry.id)
          throw new Error(`the partner events log ${this.logPath} changed under its index at byte ${entry.offset}`);
        return { entry, event: await this.sealer.open(Buffer.from(record.body, 'base64'), record) };
      }),
    );
  }

  private async writeDisabledEndpoints(endpoints: DisabledEndpoint[]): Promise<void> {
    const path = join(this.options.dir, DISABLED_ENDPOINTS_FILE);
    const aside = `${path}.${process.pid}.tmp`;
    const file = await open(aside, 'w', 0o600);
    try {
      await file.writeFile(`${JSON.stringify(endpoints, null, 2)}\n`);
      await file.sync();
    } finally {
      await file.close();
    }
    // rename() replaces the file whole: a reader sees the old list or the new one, never half of one.
    await rename(aside, path);
    await syncFolder(this.options.dir);
  }
}

/** fsync of a folder, so a file created or renamed in it stays after a crash. */
async function syncFolder(dir: string): Promise<void> {
  const folder = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
