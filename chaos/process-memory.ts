/**
 * A worker process's resident memory, read from Linux's /proc, for the chaos run's memory-budget check.
 * `rampflow worker` relaunches itself with the heap limit WORKER_MEMORY_MB sets (bin/worker-heap.cjs):
 * the worker proper is the descendant started with `--max-old-space-size`, and its launcher (a few
 * dozen MiB, waiting) is not what the budget bounds.
 */
import { readdirSync, readFileSync } from 'node:fs';

const HEAP_FLAG = '--max-old-space-size';

/** Resident MiB of the worker proper under `launcherPid`; undefined when /proc cannot tell (not Linux, exited). */
export function workerResidentMiB(launcherPid: number): number | undefined {
  const worker =
    descendantsOf(launcherPid).find((pid) => commandLineOf(pid).some((arg) => arg.startsWith(HEAP_FLAG))) ??
    launcherPid;
  return residentMiBOf(worker);
}

function residentMiBOf(pid: number): number | undefined {
  const status = readOrUndefined(`/proc/${pid}/status`);
  const kib = status?.match(/^VmRSS:\s+(\d+) kB$/m)?.[1];
  return kib === undefined ? undefined : Number(kib) / 1024;
}

function commandLineOf(pid: number): string[] {
  return (readOrUndefined(`/proc/${pid}/cmdline`) ?? '').split('\0');
}

/** Every process below `root`, nearest first. */
function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    // The parent's pid is the fourth field, after the command name in parentheses (which may hold spaces).
    const stat = readOrUndefined(`/proc/${entry}/stat`);
    const parent = stat ? Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) : NaN;
    if (!Number.isNaN(parent)) children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  for (let queue = [root]; queue.length > 0;) {
    const next = children.get(queue.shift()!) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
