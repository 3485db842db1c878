/** The child processes the cluster profile runs (PostgreSQL, the Temporal server): started, logged to a file, stopped. */
import { spawn, type SpawnOptions } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';

export interface LoggedProcess {
  /** Resolves with the exit code (null when a signal ended it) once the process has exited. */
  exited: Promise<number | null>;
  /** Whether it still runs. */
  running(): boolean;
  /** Sends `signal` and waits until it is gone, with SIGKILL after `graceMs`. */
  stop(signal: NodeJS.Signals, graceMs: number): Promise<void>;
}

/** Spawns a process whose stdout and stderr are appended to `logFile`. */
export function spawnLogged(
  command: string,
  args: string[],
  logFile: string,
  options: Omit<SpawnOptions, 'stdio'> = {},
): LoggedProcess {
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code))).finally(() =>
    log.end(),
  );
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    exited,
    running,
    async stop(signal, graceMs) {
      if (!running()) return;
      child.kill(signal);
      const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(killer);
    },
  };
}

/**
 * Polls `ready` until it is true, failing when the process exits first or `timeoutMs` passes, with
 * the last lines of its log in the message.
 */
export async function waitUntilReady(
  what: string,
  process: LoggedProcess,
  logFile: string,
  timeoutMs: number,
  ready: () => Promise<boolean>,
): Promise<void> {
  let exitCode: number | null | undefined;
  void process.exited.then((code) => {
    exitCode = code;
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exitCode !== undefined)
      throw new Error(`${what} exited during start-up (exit ${exitCode})\n${lastLines(logFile, 15)}`);
    if (await ready()) return;
    if (Date.now() > deadline)
      throw new Error(`${what} was not ready within ${timeoutMs / 1000} s\n${lastLines(logFile, 15)}`);
    await new Promise((wake) => setTimeout(wake, 500));
  }
}

/** The last lines of a log file, for an error message that says what went wrong. */
export function lastLines(file: string, count: number): string {
  if (!existsSync(file)) return '';
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  return `last lines of ${file}:\n${lines.slice(-count).join('\n')}`;
}
