/**
 * The file store's one-writer rule: a lock file created exclusively (O_EXCL) in the folder it guards,
 * naming the writer (pid, host) and the folder, and held open by the writer for as long as it writes.
 * A second writer of the same folder is refused with a message that names the folder and its holder.
 *
 * A lock is taken over when its holder does not write to this folder: it died (same host, pid gone or
 * a zombie not yet reaped), or it is alive but holds a different lock file open, which is what a
 * copied folder carries (`cp -r .data`): the copy's lock names the other stack's live worker, which
 * writes to its own folder, not to this one. Whether a live process holds this very lock file is read
 * from /proc/<pid>/fd (Linux, a process of the same user); where that cannot be read, a lock naming
 * another folder is taken over and one naming this folder is respected.
 */
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';

export class PartnerEventWriterLockedError extends Error {
  constructor(lockFile: string, holder: string) {
    super(
      `partner events in ${dirname(lockFile)} are already being written by ${holder} (lock ${lockFile}): the file store takes one writer at a time. ` +
        'Stop that process (or delete the lock file if no rampflow process holds it), or set PARTNER_EVENTS_DATABASE_URL to use PostgreSQL, which takes several.',
    );
    this.name = 'PartnerEventWriterLockedError';
  }
}

interface LockRecord {
  pid: number;
  host: string;
  /** Tells this lock from a later one by the same pid (a pid is reused). */
  token: string;
  /** The folder the lock guards, as its writer resolved it; absent in locks written before it was recorded. */
  folder?: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !exitedUnreaped(pid);
}

/**
 * Whether the process has exited and only waits to be reaped (a zombie): it still answers signal 0.
 * A worker killed outright leaves one until its parent (or init, which may take its time in a
 * container) reaps it, and a restart must not wait for that. Linux only; elsewhere, false.
 */
function exitedUnreaped(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // "pid (command) state ...": the command may hold spaces and parentheses, so read after the last ')'.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X';
}

/**
 * Whether process `pid` holds the file `lockFile` (this very file: device and inode) open; undefined
 * when its open files cannot be read (not Linux, another user's process).
 */
function holdsOpen(pid: number, lockFile: string): boolean | undefined {
  let lock: { dev: number; ino: number };
  let fds: string[];
  try {
    lock = statSync(lockFile);
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return undefined;
  }
  return fds.some((fd) => {
    try {
      const open = statSync(`/proc/${pid}/fd/${fd}`);
      return open.dev === lock.dev && open.ino === lock.ino;
    } catch {
      // Closed since the folder was listed, or not a file.
      return false;
    }
  });
}

/** Whether the lock's holder writes to the folder `lockFile` guards (see the top of this file). */
function holderWritesHere(record: LockRecord, lockFile: string, folder: string): boolean {
  if (record.host !== hostname()) return true;
  if (!alive(record.pid)) return false;
  const open = holdsOpen(record.pid, lockFile);
  if (open !== undefined) return open;
  return record.folder === undefined || record.folder === folder;
}

function readLock(lockFile: string): { text: string; record: LockRecord | undefined } | undefined {
  let text: string;
  try {
    text = readFileSync(lockFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return { text, record: JSON.parse(text) as LockRecord };
  } catch {
    // Written with O_EXCL and one write, so a half-written lock is a writer caught mid-start.
    return { text, record: undefined };
  }
}

const describeHolder = (record: LockRecord): string =>
  `process ${record.pid} on ${record.host}${record.folder ? `, writing to ${record.folder}` : ''}`;

/** Takes the lock or throws PartnerEventWriterLockedError; the returned function lets it go. */
export function acquireWriterLock(lockFile: string): () => void {
  const folder = realpathSync(dirname(lockFile));
  const mine: LockRecord = { pid: process.pid, host: hostname(), token: randomUUID(), folder };
  const text = JSON.stringify(mine);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx', 0o600);
      writeSync(fd, text);
      // Held open while this process writes: that is what tells a later starter the lock is live here.
      return () => {
        const stillOurs = fstatSync(fd);
        closeSync(fd);
        // Only our own lock is removed: never one a later writer took over.
        const now = statSync(lockFile, { throwIfNoEntry: false });
        if (now && now.ino === stillOurs.ino && now.dev === stillOurs.dev && readLock(lockFile)?.text === text)
          unlinkSync(lockFile);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const held = readLock(lockFile);
    if (held === undefined) continue;
    const { record } = held;
    if (record === undefined) throw new PartnerEventWriterLockedError(lockFile, 'a process that is starting');
    if (holderWritesHere(record, lockFile, folder))
      throw new PartnerEventWriterLockedError(lockFile, describeHolder(record));
    // Removed only if it is still the lock read above (not one another starter just took over).
    // Two starters racing past this point in the same instant is the one gap; the dev stack starts one worker.
    if (readLock(lockFile)?.text === held.text) unlinkSync(lockFile);
  }
  throw new PartnerEventWriterLockedError(lockFile, 'another process that keeps taking it');
}
