/**
 * A process's CPU time so far (user + system, all its threads), read from Linux's /proc: what a
 * process spent, which a loaded machine changes much less than the wall time it took.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks a second (`getconf CLK_TCK`): 100 on every Linux this runs on. */
const TICKS_PER_SECOND = 100;

interface ProcessStat {
  pid: number;
  parentPid: number;
  /** The executable's name, cut to 15 characters by the kernel. */
  name: string;
  /** Its own user + system time, ms. */
  ownMs: number;
  /** User + system time of its children that have exited and been waited for, ms. */
  reapedChildrenMs: number;
}

function statOf(pid: number): ProcessStat | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // gone since it was listed
  }
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis are fixed.
  const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  const ms = (ticks: number) => (ticks * 1000) / TICKS_PER_SECOND;
  return {
    pid,
    parentPid: fields[1]!,
    name,
    ownMs: ms(fields[11]! + fields[12]!),
    reapedChildrenMs: ms(fields[13]! + fields[14]!),
  };
}

export function processCpuMs(pid: number): number {
  const stat = statOf(pid);
  if (!stat) throw new Error(`process ${pid} is not running`);
  return stat.ownMs;
}

function allProcesses(): ProcessStat[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => statOf(Number(entry)) ?? []);
}

/**
 * The CPU time so far of every process below this one running the executable `name` (cut to 15
 * characters, as the kernel keeps it), each with all its descendants: the Temporal dev server
 * (`temporal`), the cluster profile's server (`temporal-server`, started through a shell), or
 * PostgreSQL (`postgres`: the postmaster and its backends, including those that have exited, whose
 * time is in their parent's reaped share). Undefined when none runs.
 */
export function descendantsCpuMs(name: string): number | undefined {
  const processes = allProcesses();
  const childrenOf = new Map<number, ProcessStat[]>();
  for (const stat of processes)
    (childrenOf.get(stat.parentPid) ?? childrenOf.set(stat.parentPid, []).get(stat.parentPid)!).push(stat);
  const wanted = name.slice(0, 15);
  const childrenOfPid = (pid: number) => childrenOf.get(pid) ?? [];
  const treeMs = (stat: ProcessStat): number =>
    stat.ownMs + stat.reapedChildrenMs + childrenOfPid(stat.pid).reduce((sum, child) => sum + treeMs(child), 0);
  // The topmost matching processes below this one, each with its whole tree.
  const matching = (stat: ProcessStat): ProcessStat[] =>
    stat.name === wanted ? [stat] : childrenOfPid(stat.pid).flatMap(matching);
  const found = childrenOfPid(process.pid).flatMap(matching);
  return found.length === 0 ? undefined : found.reduce((sum, stat) => sum + treeMs(stat), 0);
}

/**
 * The CPU time every process on the machine has spent so far (the first line of /proc/stat: user,
 * nice, system, irq, softirq and steal; idle and iowait left out). Read before and after a run on an
 * otherwise quiet machine, it is what the run cost in all, whichever processes spent it: the Temporal
 * server, PostgreSQL's backends, the workers, the receiver and the benchmark itself.
 */
export function machineBusyCpuMs(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return ((user! + nice! + system! + irq! + softirq! + (steal ?? 0)) * 1000) / TICKS_PER_SECOND;
}

/** The executable of the Temporal server the benchmark started. */
const serverExecutable = (cluster: boolean) => (cluster ? 'temporal-server' : 'temporal');

/** The CPU ms of the server's (and, on the cluster, PostgreSQL's) processes so far. */
export function temporalCpuMs(cluster: boolean): { server: number; postgres?: number } {
  const server = descendantsCpuMs(serverExecutable(cluster));
  if (server === undefined) throw new Error(`no ${serverExecutable(cluster)} process found below the benchmark`);
  if (!cluster) return { server };
  return { server, postgres: descendantsCpuMs('postgres') ?? 0 };
}
