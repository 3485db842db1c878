/**
 * The worker's stop deadline (workers/stop-deadline.ts): armed by the first stop signal, it gives up
 * on a drain that outlives it, once; a worker that stopped in time disarms it, and without a signal it
 * never fires.
 */
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { armStopDeadline } from '../../workers/stop-deadline';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function armed(afterMs = 60_000) {
  const signals = new EventEmitter();
  const onStalled = vi.fn();
  const disarm = armStopDeadline({ signals: ['SIGINT', 'SIGTERM'], afterMs, onStalled, emitter: signals });
  return { signals, onStalled, disarm };
}

describe("the worker's stop deadline", () => {
  it('gives up on a drain still running its time after the first stop signal, once, whatever signals follow', () => {
    const { signals, onStalled } = armed();
    signals.emit('SIGTERM');
    vi.advanceTimersByTime(59_999);
    signals.emit('SIGINT'); // a second signal does not restart the clock
    expect(onStalled).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onStalled).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(600_000);
    expect(onStalled).toHaveBeenCalledTimes(1);
  });

  it('never fires for a worker that stopped in time, nor for one never told to stop', () => {
    const stopped = armed();
    stopped.signals.emit('SIGTERM');
    vi.advanceTimersByTime(10_000);
    stopped.disarm();
    vi.advanceTimersByTime(600_000);
    expect(stopped.onStalled).not.toHaveBeenCalled();
    expect(stopped.signals.listenerCount('SIGINT')).toBe(0);

    const running = armed();
    vi.advanceTimersByTime(600_000);
    expect(running.onStalled).not.toHaveBeenCalled();
  });
});
