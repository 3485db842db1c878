/** A process's resident memory, read from Linux's /proc: the current size and the peak (high-water mark). */
import { readFileSync } from 'node:fs';

export interface ProcessMemory {
  /** VmRSS: resident now, in MiB. */
  rssMiB: number;
  /** VmHWM: the most it was ever resident, in MiB. */
  peakMiB: number;
}

function fieldKiB(status: string, name: string): number {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!match) throw new Error(`/proc status has no ${name} line`);
  return Number(match[1]);
}

export function processMemory(pid: number): ProcessMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return { rssMiB: fieldKiB(status, 'VmRSS') / 1024, peakMiB: fieldKiB(status, 'VmHWM') / 1024 };
}
