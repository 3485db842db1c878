/**
 * A worker whose host clock is off: Debian's libfaketime, preloaded into the worker's process (and the
 * worker proper `rampflow worker` relaunches, which inherits its environment), shifts the wall clock
 * the worker, its Node runtime and the Temporal core read by a fixed number of seconds. The monotonic
 * clock (timers, durations) is left alone, as on a host whose NTP is off but whose uptime is not.
 */
import { existsSync } from 'node:fs';

/** Where Debian's `libfaketime` package puts the library (amd64 and arm64). */
const LIBRARY_PATHS = [
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1',
];

/** The preloadable library, or undefined when libfaketime is not installed. */
export function fakeTimeLibrary(): string | undefined {
  return LIBRARY_PATHS.find((path) => existsSync(path));
}

/** The environment that starts a process with its wall clock `offsetSeconds` off (0: none). */
export function clockOffEnv(library: string, offsetSeconds: number): Record<string, string> {
  if (offsetSeconds === 0) return {};
  return {
    LD_PRELOAD: library,
    FAKETIME: `${offsetSeconds > 0 ? '+' : ''}${offsetSeconds}s`,
    FAKETIME_DONT_FAKE_MONOTONIC: '1',
  };
}
