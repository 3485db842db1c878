/**
 * A process's CPU time so far (user + system, all its threads), read from Linux's /proc: what a
 * process spent, which a loaded machine changes much less than the wall time it took.
 */
import { readFileSync } from 'node:fs';

/** Clock ticks a second (`getconf CLK_TCK`): 100 on every Linux this runs on. */
const TICKS_PER_SECOND = 100;

export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis are fixed.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [utime, stime] = [Number(fields[11]), Number(fields[12])];
  return ((utime + stime) * 1000) / TICKS_PER_SECOND;
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
