/** Small helpers for the child processes the cluster profile runs (PostgreSQL, the Temporal server). */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

/** Resolves with the exit code (null when a signal ended it) once the child has exited. */
export function waitForExit(child: ChildProcess): Promise<number | null> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) done(child.exitCode);
    else child.once('exit', (code) => done(code));
  });
}

/** The last lines of a log file, for an error message that says what went wrong. */
export function lastLines(file: string, count: number): string {
  if (!existsSync(file)) return '';
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  return `last lines of ${file}:\n${lines.slice(-count).join('\n')}`;
}
