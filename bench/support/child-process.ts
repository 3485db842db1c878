/**
 * A rampflow process (or a benchmark's own entry point) run as a child, so its memory is its own and
 * can be read from /proc. Its output goes to a log file under bench/results/logs (git-ignored), read
 * when something goes wrong; pipes would make this process spend CPU draining them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { processCpuMs } from './process-cpu';
import { processMemory, type ProcessMemory } from './process-memory';

export const PROJECT_ROOT = resolve(__dirname, '..', '..');
const LOG_DIR = join(PROJECT_ROOT, 'bench', 'results', 'logs');

export interface BenchChild {
  logFile: string;
  memory(): ProcessMemory;
  /** CPU time the process has used so far (user + system), in ms. */
  cpuMs(): number;
  /** Throws with the log's tail if the process has exited. */
  assertAlive(): void;
  /** SIGTERM, SIGKILL after a grace period; resolves once it has exited. */
  stop(): Promise<void>;
}

export interface ChildSpec {
  /** A name for the log file. */
  name: string;
  /** `rampflow` CLI arguments, or a TypeScript file of bench/ run through tsx. */
  command: { rampflow: string[] } | { script: string; args?: string[] };
  env: Record<string, string>;
  /** Node's own flags for the child, before the entry point: `--max-old-space-size=…` as the worker's launchers pass it, `--cpu-prof` (which NODE_OPTIONS does not take). */
  nodeArgs?: string[];
}

/** Children still running; killed if this process exits without stopping them (an error, Ctrl-C). */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

export function startChild(spec: ChildSpec): BenchChild {
  mkdirSync(LOG_DIR, { recursive: true });
  const logFile = join(LOG_DIR, `${spec.name}.log`);
  const log = openSync(logFile, 'w');
  // tsx as a loader, not its CLI (which would run the script in a grandchild whose memory we would not see).
  const entry =
    'rampflow' in spec.command
      ? [join(PROJECT_ROOT, 'bin', 'rampflow.cjs'), ...spec.command.rampflow]
      : ['--import', 'tsx', join(PROJECT_ROOT, spec.command.script), ...(spec.command.args ?? [])];
  const args = [...(spec.nodeArgs ?? []), ...entry];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...spec.env },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  running.add(child);
  const exited = new Promise<void>((done) =>
    child.once('exit', () => {
      running.delete(child);
      done();
    }),
  );
  const alive = () => child.exitCode === null && child.signalCode === null;
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${spec.name}`);
  return {
    logFile,
    memory: () => processMemory(pid),
    cpuMs: () => processCpuMs(pid),
    assertAlive() {
      if (alive()) return;
      const tail = readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n');
      throw new Error(`${spec.name} exited (${child.exitCode ?? child.signalCode}); the end of ${logFile}:\n${tail}`);
    },
    async stop() {
      if (!alive()) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** Polls `ready` until it holds, failing early when the child dies and after `timeoutMs`. */
export async function waitUntilReady(
  child: BenchChild,
  what: string,
  ready: () => Promise<boolean>,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    child.assertAlive();
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline)
      throw new Error(`${what} was not ready within ${timeoutMs / 1000} s; see ${child.logFile}`);
    await new Promise((wake) => setTimeout(wake, 250));
  }
}
