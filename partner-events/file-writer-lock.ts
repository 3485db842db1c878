/**
 * The file store's one-writer rule: a lock file holding the writer's pid and host, created
 * exclusively (O_EXCL). A second writer is refused with a message that says who holds it. A lock
 * left by a process that died (same host, pid gone, or a zombie not yet reaped) is taken over, so a
 * crashed worker does not block the next start.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';

export class PartnerEventWriterLockedError extends Error {
  constructor(lockFile: string, holder: string) {
    super(
      `partner events are already being written by ${holder} (lock ${lockFile}): the file store takes one writer at a time. ` +
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

/** Takes the lock or throws PartnerEventWriterLockedError; the returned function lets it go. */
export function acquireWriterLock(lockFile: string): () => void {
  const mine: LockRecord = { pid: process.pid, host: hostname(), token: randomUUID() };
  const text = JSON.stringify(mine);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(lockFile, text, { flag: 'wx', mode: 0o600 });
      return () => {
        // Only our own lock is removed: never one a later writer took over.
        if (readLock(lockFile)?.text === text) unlinkSync(lockFile);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const held = readLock(lockFile);
    if (held === undefined) continue;
    const { record } = held;
    const stale = record !== undefined && record.host === mine.host && !alive(record.pid);
    if (!stale) throw new PartnerEventWriterLockedError(lockFile, record ? `process ${record.pid} on ${record.host}` : 'a process that is starting');
    // Removed only if it is still the dead writer's lock (not one another starter just took over).
    // Two starters racing past this point in the same instant is the one gap; the dev stack starts one worker.
    if (readLock(lockFile)?.text === held.text) unlinkSync(lockFile);
  }
  throw new PartnerEventWriterLockedError(lockFile, 'another process that keeps taking it');
}
