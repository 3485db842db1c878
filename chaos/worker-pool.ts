/**
 * The chaos run's workers: `rampflow worker` child processes as operators run them, as many as the
 * schedule says (an autoscaler's 1 to 3), each of which the schedule may kill outright. A worker that
 * exits when the run did not end it is a crash, kept with the end of its output as evidence; so is one
 * stopped (SIGTERM) that exits with an error or does not exit within STOP_BOUND_MS, which is then killed.
 * (test/faults/support/worker-process.ts reaches vitest through its imports, so the run, a plain
 * program, spawns its own.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_WORKER_MEMORY_MB } from '../config/worker-memory';
import { STOP_MARGIN_MS } from '../workers/stop-deadline';
import { SHUTDOWN_GRACE_MS } from '../workers/worker';
import { PROJECT_ROOT } from '../test/support/run';
import { workerResidentMiB } from './process-memory';
import { clockFileEnv, writeClockOffset } from './worker-clock';

const KEEP_OUTPUT_CHARS = 4_000;
const START_TIMEOUT_MS = 120_000;
/**
 * How long a stopped worker may take to exit: its own stop deadline (workers/stop-deadline.ts), and a
 * margin. Past it the worker is killed, so a stuck drain costs the run a finding, never the run.
 */
const STOP_BOUND_MS = SHUTDOWN_GRACE_MS + STOP_MARGIN_MS + 15_000;
/** How often each running worker's resident memory is read for its peak. */
const MEMORY_SAMPLE_MS = 1_000;

export interface Crash {
  worker: number;
  code: number | null;
  signal: string | null;
  outputTail: string;
  /** Set when the run stopped it (SIGTERM) and the stop went wrong: what went wrong. */
  stop?: string;
}

interface Running {
  id: number;
  child: ChildProcess;
  ending: boolean;
  exited: Promise<void>;
  /** The end of what it printed. */
  output: () => string;
  /** Its wall clock's offset file and the offset in it (when the run sets clocks). */
  clock?: { library: string; file: string; offsetSeconds: number };
}

/** A step of one running worker's wall clock: which worker, from what offset to what. */
export interface ClockStep {
  worker: number;
  fromSeconds: number;
  toSeconds: number;
}

export interface MemoryPeak {
  worker: number;
  peakMiB: number;
}

export class WorkerPool {
  readonly crashes: Crash[] = [];
  /** The budget each worker keeps (WORKER_MEMORY_MB, as the workers are given it). */
  readonly memoryBudgetMiB: number;
  /** Each worker's highest resident memory seen, sampled every MEMORY_SAMPLE_MS while it ran. */
  private readonly peaks = new Map<number, number>();
  private sampler: NodeJS.Timeout | undefined;
  /** How many workers ran from when: each change of the count, for evidence that names the moment. */
  readonly countSince: { at: number; workers: number }[] = [];
  private readonly running: Running[] = [];
  private started = 0;
  /** Where the workers' clock offset files live (when the run sets clocks). */
  private readonly clockDir: string | undefined;

  /**
   * @param clocks when given, the n-th worker started runs with its wall clock `offsetsSeconds[n mod
   *   length]` off (chaos/worker-clock.ts), as a fleet whose hosts' clocks disagree, read from a file
   *   of its own that `stepClock` rewrites
   */
  constructor(
    private readonly env: Record<string, string>,
    private readonly clocks?: { library: string; offsetsSeconds: number[] },
  ) {
    this.memoryBudgetMiB = Number(env.WORKER_MEMORY_MB ?? process.env.WORKER_MEMORY_MB ?? DEFAULT_WORKER_MEMORY_MB);
    this.clockDir = clocks ? mkdtempSync(join(tmpdir(), 'rampflow-chaos-clocks-')) : undefined;
  }

  get memoryPeaks(): MemoryPeak[] {
    return [...this.peaks].map(([worker, peakMiB]) => ({ worker, peakMiB }));
  }

  get size(): number {
    return this.running.length;
  }

  /** Starts or stops (gracefully, SIGTERM) workers until `count` run; resolves once the new ones poll. */
  async scaleTo(count: number): Promise<void> {
    while (this.running.length > count) await this.end(this.running.at(-1)!, 'SIGTERM');
    const starting: Promise<void>[] = [];
    while (this.running.length < count) starting.push(this.startOne());
    await Promise.all(starting);
  }

  /** SIGKILL one worker (`pick` in [0, 1) chooses which) and starts a replacement. */
  async killOne(pick: number): Promise<void> {
    const victim = this.running[Math.floor(pick * this.running.length)];
    if (!victim) return;
    await this.end(victim, 'SIGKILL');
    await this.startOne();
  }

  /**
   * Steps one running worker's wall clock by `bySeconds` (`pick` in [0, 1) chooses which), as NTP or an
   * operator steps a host's clock: the worker reads it within a second. Undefined when the run sets no
   * clocks or no worker runs.
   */
  stepClock(pick: number, bySeconds: number): ClockStep | undefined {
    const worker = this.running[Math.floor(pick * this.running.length)];
    if (!worker?.clock) return undefined;
    const fromSeconds = worker.clock.offsetSeconds;
    worker.clock.offsetSeconds += bySeconds;
    writeClockOffset(worker.clock.file, worker.clock.offsetSeconds);
    return { worker: worker.id, fromSeconds, toSeconds: worker.clock.offsetSeconds };
  }

  async stopAll(): Promise<void> {
    await this.scaleTo(0);
    clearInterval(this.sampler);
    this.sampler = undefined;
  }

  private sampleMemory(): void {
    for (const { id, child } of this.running) {
      const resident = child.pid === undefined ? undefined : workerResidentMiB(child.pid);
      if (resident !== undefined) this.peaks.set(id, Math.max(this.peaks.get(id) ?? 0, resident));
    }
  }

  /** The most workers that ran at any moment from `from` to `to` (ms). */
  mostBetween(from: number, to: number): number {
    let most = 0;
    let current = 0;
    for (const { at, workers } of this.countSince) {
      if (at <= from) current = workers;
      else if (at <= to) most = Math.max(most, workers);
    }
    return Math.max(most, current);
  }

  private noteCount(): void {
    this.countSince.push({ at: Date.now(), workers: this.running.length });
  }

  private async end(worker: Running, signal: NodeJS.Signals): Promise<void> {
    worker.ending = true;
    this.running.splice(this.running.indexOf(worker), 1);
    this.noteCount();
    worker.child.kill(signal);
    if (signal !== 'SIGTERM') return worker.exited;
    const exit = new Promise<{ code: number | null; signal: string | null }>((done) =>
      worker.child.once('exit', (code, exitSignal) => done({ code, signal: exitSignal })),
    );
    let bound: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      exit,
      new Promise<'stuck'>((done) => (bound = setTimeout(() => done('stuck'), STOP_BOUND_MS))),
    ]);
    clearTimeout(bound);
    if (outcome === 'stuck') {
      worker.child.kill('SIGKILL');
      this.crashes.push({
        worker: worker.id,
        code: null,
        signal: null,
        outputTail: worker.output(),
        stop: `still running ${STOP_BOUND_MS / 1000} s after SIGTERM (killed)`,
      });
    } else if (outcome.code !== 0 && outcome.code !== null) {
      this.crashes.push({
        worker: worker.id,
        ...outcome,
        outputTail: worker.output(),
        stop: `exited ${outcome.code} after SIGTERM`,
      });
    }
    await worker.exited;
  }

  private startOne(): Promise<void> {
    const id = ++this.started;
    const clock =
      this.clocks && this.clockDir
        ? {
            library: this.clocks.library,
            file: join(this.clockDir, `worker-${id}`),
            offsetSeconds: this.clocks.offsetsSeconds[(id - 1) % this.clocks.offsetsSeconds.length]!,
          }
        : undefined;
    if (clock) writeClockOffset(clock.file, clock.offsetSeconds);
    const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'rampflow.cjs'), 'worker'], {
      cwd: PROJECT_ROOT,
      env: {
        ...process.env,
        ...this.env,
        ...(clock ? clockFileEnv(clock.library, clock.file) : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let polling = false;
    let markPolling = () => {};
    const append = (chunk: string) => {
      output = (output + chunk).slice(-KEEP_OUTPUT_CHARS);
      if (!polling && output.includes('worker started')) {
        polling = true;
        markPolling();
      }
    };
    child.stdout.setEncoding('utf8').on('data', append);
    child.stderr.setEncoding('utf8').on('data', append);
    const worker: Running = {
      id,
      child,
      ...(clock ? { clock } : {}),
      ending: false,
      output: () => output,
      exited: new Promise<void>((done) =>
        child.once('close', (code, signal) => {
          if (!worker.ending) {
            this.crashes.push({ worker: id, code, signal, outputTail: output });
            const at = this.running.indexOf(worker);
            if (at >= 0) this.running.splice(at, 1);
            this.noteCount();
          }
          done();
        }),
      ),
    };
    this.running.push(worker);
    this.noteCount();
    this.sampler ??= setInterval(() => this.sampleMemory(), MEMORY_SAMPLE_MS).unref();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`worker ${id} did not start polling within ${START_TIMEOUT_MS / 1000} s:\n${output}`)),
        START_TIMEOUT_MS,
      );
      markPolling = () => {
        clearTimeout(timer);
        resolve();
      };
      if (polling) markPolling();
      void worker.exited.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
