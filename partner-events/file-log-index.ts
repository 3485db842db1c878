/**
 * The file store's log format and its in-memory index. The log is JSON lines, one event a line:
 * `{"position":1,"id":"evt_…","stream":"customer/…","sequence":1,"type":"…","timestamp":"…","body":"<base64 of the sealed body>"}`.
 * Only complete lines (ending in a newline) count; whatever follows the last newline is a write in
 * progress, or one a crash tore.
 *
 * The index keeps where each event's line lies (not its body), by position, by id and by stream, so
 * a reader pages from the file itself and memory grows by a few dozen bytes an event.
 */
import type { FileHandle } from 'node:fs/promises';
import type { PartnerEvent, PartnerEventStream } from './catalogue';

export interface LogRecord {
  position: number;
  id: string;
  stream: string;
  sequence: number;
  type: string;
  timestamp: string;
  /** base64 of the sealed body (sealing.ts). */
  body: string;
}

export interface IndexedEvent {
  position: number;
  id: string;
  stream: string;
  sequence: number;
  /** Where its line starts in the log, and its length without the newline. */
  offset: number;
  length: number;
}

const NEWLINE = 0x0a;
const CHUNK_BYTES = 1 << 20;

export function logLine(event: PartnerEvent, stream: PartnerEventStream, position: number, body: Uint8Array): string {
  const record: LogRecord = {
    position,
    id: event.id,
    stream,
    sequence: event.sequence,
    type: event.type,
    timestamp: event.timestamp,
    body: Buffer.from(body).toString('base64'),
  };
  return `${JSON.stringify(record)}\n`;
}

/** A complete line's record; undefined when it is not one (a torn or foreign line). Never echoes the line. */
export function parseLogLine(line: Buffer): LogRecord | undefined {
  try {
    const record = JSON.parse(line.toString('utf8')) as Partial<LogRecord>;
    const valid =
      Number.isSafeInteger(record.position) &&
      typeof record.id === 'string' &&
      typeof record.stream === 'string' &&
      Number.isSafeInteger(record.sequence) &&
      typeof record.body === 'string';
    return valid ? (record as LogRecord) : undefined;
  } catch {
    return undefined;
  }
}

export class LogIndex {
  private readonly byPosition: IndexedEvent[] = [];
  private readonly byId = new Map<string, IndexedEvent>();
  /** Each stream's events, kept in sequence order. */
  private readonly byStream = new Map<string, IndexedEvent[]>();
  /** Where the next unread line starts: everything before is indexed. */
  readOffset = 0;

  get lastPosition(): number {
    return this.byPosition.at(-1)?.position ?? 0;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** The event with this id, if indexed. */
  byEventId(id: string): IndexedEvent | undefined {
    return this.byId.get(id);
  }

  /** The event holding `sequence` in `stream`, if any. */
  atSequence(stream: string, sequence: number): IndexedEvent | undefined {
    const events = this.byStream.get(stream) ?? [];
    const at = firstIndex(events, (event) => event.sequence >= sequence);
    return events[at]?.sequence === sequence ? events[at] : undefined;
  }

  /** The highest sequence `stream` holds, 0 for a stream with no events. */
  lastSequence(stream: string): number {
    return this.byStream.get(stream)?.at(-1)?.sequence ?? 0;
  }

  add(entry: IndexedEvent): void {
    if (entry.position <= this.lastPosition)
      throw new Error(`the partner events log is out of order at position ${entry.position}`);
    this.byPosition.push(entry);
    this.byId.set(entry.id, entry);
    const stream = this.byStream.get(entry.stream) ?? [];
    stream.splice(
      firstIndex(stream, (event) => event.sequence > entry.sequence),
      0,
      entry,
    );
    this.byStream.set(entry.stream, stream);
  }

  afterPosition(position: number, limit: number): IndexedEvent[] {
    const start = firstIndex(this.byPosition, (event) => event.position > position);
    return this.byPosition.slice(start, start + limit);
  }

  afterSequence(stream: string, sequence: number, limit: number): IndexedEvent[] {
    const events = this.byStream.get(stream) ?? [];
    const start = firstIndex(events, (event) => event.sequence > sequence);
    return events.slice(start, start + limit);
  }

  /**
   * Indexes the complete lines between readOffset and `size`, a chunk at a time. A complete line that
   * is not a record stops the scan: its offset is returned (readOffset stays there) for the caller to
   * judge, since only the last line can be torn by a crash.
   */
  async scan(file: FileHandle, size: number): Promise<number | undefined> {
    let carried = Buffer.alloc(0);
    let carriedFrom = this.readOffset;
    for (let at = this.readOffset; at < size;) {
      const chunk = Buffer.alloc(Math.min(CHUNK_BYTES, size - at));
      const { bytesRead } = await file.read(chunk, 0, chunk.length, at);
      if (bytesRead === 0) break;
      at += bytesRead;
      const bytes =
        carried.length > 0 ? Buffer.concat([carried, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
      let lineStart = 0;
      for (let newline = bytes.indexOf(NEWLINE); newline !== -1; newline = bytes.indexOf(NEWLINE, lineStart)) {
        const offset = carriedFrom + lineStart;
        const record = parseLogLine(bytes.subarray(lineStart, newline));
        if (record === undefined) return offset;
        this.add({
          position: record.position,
          id: record.id,
          stream: record.stream,
          sequence: record.sequence,
          offset,
          length: newline - lineStart,
        });
        lineStart = newline + 1;
        this.readOffset = carriedFrom + lineStart;
      }
      carried = Buffer.from(bytes.subarray(lineStart));
      carriedFrom += lineStart;
    }
    return undefined;
  }
}

/** The first index whose element satisfies `test`, for an array where `test` goes false…false true…true. */
function firstIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (test(items[middle]!)) high = middle;
    else low = middle + 1;
  }
  return low;
}
