/**
 * A worker told to stop ends within a bound, whatever the SDK's drain does.
 *
 * On SIGINT or SIGTERM the SDK stops polling and gives in-flight tasks the shutdown grace time
 * (workers/worker.ts, 30 s), then the process ends by itself. The chaos run met a drain that never
 * ended (seed 3 at 80 customers, 2026-11-28): a scaled-down worker's workflow worker stayed DRAINING
 * with its polls outstanding and no connection to Temporal left, for 15 minutes, until killed. An
 * orchestrator would kill such a process at the end of its own grace period, but a deployment
 * without one (a systemd unit that waits, a script) would wait for ever, and a rolling deploy with it.
 * So STOP_MARGIN_MS after the grace time, the process logs that it is stuck and exits 1: what it held
 * goes back to Temporal as after a kill (activities retried after their timeouts, workflow tasks
 * after theirs), which the grace time had already given up waiting for.
 */
import type { EventEmitter } from 'node:events';

/** How long past the shutdown grace time a drain may run before the process gives up on it. */
export const STOP_MARGIN_MS = 30_000;

export interface StopDeadline {
  /** The signals that start a stop (the SDK's shutdown signals). */
  signals: readonly NodeJS.Signals[];
  /** From the first of them to the give-up. */
  afterMs: number;
  /** Called once when the deadline passes with the process still running (logs, then exits). */
  onStalled: () => void;
  /** Where the signals come from: the process, or a stand-in in tests. */
  emitter?: Pick<EventEmitter, 'once' | 'removeListener'>;
}

/** Arms the deadline at the first stop signal; returns a function that disarms it (the worker stopped). */
export function armStopDeadline({ signals, afterMs, onStalled, emitter = process }: StopDeadline): () => void {
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    timer ??= setTimeout(onStalled, afterMs);
    // Never what keeps the process alive: a worker that stopped in time exits with this still set.
    timer.unref();
  };
  for (const signal of signals) emitter.once(signal, arm);
  return () => {
    for (const signal of signals) emitter.removeListener(signal, arm);
    if (timer) clearTimeout(timer);
  };
}
