/**
 * A worker whose host clock is off, and steps while it runs: Debian's libfaketime, preloaded into the
 * worker's process (and the worker proper `rampflow worker` relaunches, which inherits its
 * environment), shifts the wall clock the worker, its Node runtime and the Temporal core read by the
 * offset written in a file of the worker's own, read again every second, so the run can step it as
 * NTP or an operator steps a host's clock. The monotonic clock (timers, durations) is left alone, as
 * on a host whose NTP is off but whose uptime is not.
 */
import { existsSync, renameSync, writeFileSync } from 'node:fs';

/** Where Debian's `libfaketime` package puts the library (amd64 and arm64). */
const LIBRARY_PATHS = [
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1',
];

/** The preloadable library, or undefined when libfaketime is not installed. */
export function fakeTimeLibrary(): string | undefined {
  return LIBRARY_PATHS.find((path) => existsSync(path));
}

/** The environment that starts a process whose wall clock is off by the offset in `offsetFile`. */
export function clockFileEnv(library: string, offsetFile: string): Record<string, string> {
  return {
    LD_PRELOAD: library,
    FAKETIME_TIMESTAMP_FILE: offsetFile,
    // Read again at most once a second: a step reaches the process within a second.
    FAKETIME_CACHE_DURATION: '1',
    FAKETIME_DONT_FAKE_MONOTONIC: '1',
  };
}

/** Sets (or steps) the offset a process started with `clockFileEnv(…, offsetFile)` reads. */
export function writeClockOffset(offsetFile: string, offsetSeconds: number): void {
  // Written whole, then renamed over the old: the process may read the file at any moment.
  const next = `${offsetFile}.next`;
  writeFileSync(next, `${offsetSeconds >= 0 ? '+' : ''}${offsetSeconds}s\n`);
  renameSync(next, offsetFile);
}
