/** Runs the project's commands as a user would: a child process with real output and a real exit code. */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

export const PROJECT_ROOT = resolve(__dirname, '..', '..');
const TSX = join(PROJECT_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  /** The working directory (default the project's root). */
  cwd?: string;
  input?: string;
  /** A hang's limit: the command is killed after it (default 60 s). */
  timeoutMs?: number;
  /** For a command that runs until stopped: it is stopped (SIGTERM) once its output so far satisfies this. */
  stopWhen?: (stdout: string) => boolean;
}

/** Runs a command to completion. */
export function run(command: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? PROJECT_ROOT,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (options.stopWhen?.(stdout)) child.kill('SIGTERM');
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Runs `rampflow <args>` through the same entry point as `npx rampflow`. */
export function runRampflow(args: string[], options: RunOptions = {}): Promise<RunResult> {
  return run(process.execPath, [join(PROJECT_ROOT, 'bin', 'rampflow.cjs'), ...args], options);
}

/** Runs a TypeScript script of the project through tsx. */
export function runScript(script: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  return run(process.execPath, [TSX, join(PROJECT_ROOT, script), ...args], options);
}
