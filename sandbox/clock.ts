/**
 * The sandbox's virtual clock and the scheduler that runs everything time-driven (event deliveries,
 * delayed transitions, the autopilot).
 *
 * The clock follows real time by default; it can be frozen (time moves only when advanced), which is
 * what tests use so that nothing happens behind their back. Advancing jumps forward and runs every
 * task that falls due, one at a time in due order, with the clock set to each task's due time, so a
 * task observes the time it was meant to run at (a delivery attempt is logged at its scheduled minute
 * even when the clock jumps a week).
 *
 * Request authentication never reads this clock: clients sign with their own wall clock, so the
 * timestamp skew and the nonce window are checked against real time (see auth/authenticate.ts).
 */
export interface ClockOptions {
  /** Where the virtual clock starts; default: now. */
  startTime?: Date;
  /** When true, time stands still until advanced; default false (the clock follows real time). */
  frozen?: boolean;
}

interface ScheduledTask {
  dueAt: number;
  sequence: number;
  label: string;
  run: () => Promise<void> | void;
}

/** setTimeout cannot wait longer than this (about 24.8 days); longer waits are re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class VirtualClock {
  private baseVirtualMs: number;
  private baseRealMs: number;
  private readonly frozen: boolean;
  private readonly tasks: ScheduledTask[] = [];
  private nextSequence = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Tasks run strictly one after another; this is the tail of that chain. */
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly onTaskError: (label: string, error: unknown) => void;

  constructor(options: ClockOptions, onTaskError: (label: string, error: unknown) => void) {
    this.baseVirtualMs = (options.startTime ?? new Date()).getTime();
    this.baseRealMs = Date.now();
    this.frozen = options.frozen ?? false;
    this.onTaskError = onTaskError;
  }

  /** Virtual time in milliseconds since the epoch. */
  now(): number {
    return this.frozen ? this.baseVirtualMs : this.baseVirtualMs + (Date.now() - this.baseRealMs);
  }

  isFrozen(): boolean {
    return this.frozen;
  }

  /** Runs `run` once the virtual time reaches `dueAt`. Tasks due at the same time run in scheduling order. */
  schedule(dueAt: number, label: string, run: () => Promise<void> | void): void {
    if (this.closed) return;
    this.tasks.push({ dueAt, sequence: this.nextSequence++, label, run });
    this.tasks.sort((a, b) => a.dueAt - b.dueAt || a.sequence - b.sequence);
    this.arm();
  }

  /** Labels and due times of the tasks still waiting, earliest first (for GET /sandbox/clock). */
  pending(): { label: string; dueAt: number }[] {
    return this.tasks.map(({ label, dueAt }) => ({ label, dueAt }));
  }

  /**
   * Moves the clock forward by `seconds`, running every task that falls due on the way (including
   * tasks those tasks schedule), each with the clock set to its due time. Resolves once all have run.
   */
  advance(seconds: number): Promise<number> {
    return this.exclusively(async () => {
      const target = this.now() + seconds * 1000;
      for (let task = this.takeDue(target); task !== undefined; task = this.takeDue(target)) {
        this.setNow(Math.max(this.now(), task.dueAt));
        await this.runTask(task);
      }
      this.setNow(Math.max(this.now(), target));
      this.arm();
      return this.now();
    });
  }

  /** Waits until every task already due has run (used by tests of other issues and by close()). */
  settle(): Promise<void> {
    return this.exclusively(() => this.runDue());
  }

  close(): void {
    this.closed = true;
    this.tasks.length = 0;
    if (this.timer) clearTimeout(this.timer);
  }

  private setNow(virtualMs: number): void {
    this.baseVirtualMs = virtualMs;
    this.baseRealMs = Date.now();
  }

  private takeDue(limit: number): ScheduledTask | undefined {
    const first = this.tasks[0];
    if (first === undefined || first.dueAt > limit) return undefined;
    return this.tasks.shift();
  }

  private async runDue(): Promise<void> {
    for (let task = this.takeDue(this.now()); task !== undefined; task = this.takeDue(this.now())) {
      await this.runTask(task);
    }
  }

  private async runTask(task: ScheduledTask): Promise<void> {
    try {
      await task.run();
    } catch (error) {
      // One failing task must not stop the scheduler; the sandbox logs it and carries on.
      this.onTaskError(task.label, error);
    }
  }

  private exclusively<T>(work: () => Promise<T>): Promise<T> {
    const result = this.chain.then(work);
    this.chain = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /**
   * Arms one real timer for the earliest task. A frozen clock only runs tasks already due (a zero
   * delay, as the autopilot's zero-second delays need); a running clock also waits for future ones.
   */
  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const first = this.tasks[0];
    if (first === undefined || this.closed) return;
    const wait = first.dueAt - this.now();
    if (wait > 0 && this.frozen) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        void this.exclusively(() => this.runDue()).then(() => this.arm());
      },
      Math.min(Math.max(wait, 0), MAX_TIMER_MS),
    );
    // The HTTP server keeps the process alive; a pending sandbox task alone should not.
    this.timer.unref();
  }
}
