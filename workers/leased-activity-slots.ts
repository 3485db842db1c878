/**
 * The service worker's activity slots, sized to its share of the partner's rate
 * (workers/partner-rate.ts): about a second of its leased calls (serviceActivitiesAtOnce), and one
 * while it has no share yet, so that it keeps polling and the server counts it among the service
 * queue's pollers (which is how it gets a share).
 *
 * Why not a fixed count: each worker is given the whole RAMP_MAX_CALLS_PER_SECOND, so a fixed count
 * of a second of it lets W workers take W seconds of activities off the server. Those wait in the
 * workers' pacers, which let waiting calls go in no particular order, while the server would have
 * kept them in priority order: a signup's create would wait behind a bulk retry's backlog
 * (test/faults/rate-limit.test.ts).
 *
 * A share that shrinks takes effect as activities end: slots already held are never taken back.
 */
import type { ActivitySlotInfo, CustomSlotSupplier, SlotPermit, SlotReleaseContext } from '@temporalio/worker';

export class LeasedActivitySlots implements CustomSlotSupplier<ActivitySlotInfo> {
  readonly type = 'custom' as const;
  #capacity = 1;
  #held = 0;
  readonly #waiting = new Set<() => void>();

  /** Slots held (reserved for a poll, or running an activity), for tests and the gauge. */
  get held(): number {
    return this.#held;
  }

  get capacity(): number {
    return this.#capacity;
  }

  /** Sets how many slots may be held; at least one. Waiting reservations go on if it grew. */
  resize(capacity: number): void {
    this.#capacity = Math.max(1, Math.floor(capacity));
    this.#wakeAll();
  }

  async reserveSlot(_context: unknown, abortSignal: AbortSignal): Promise<SlotPermit> {
    while (this.#held >= this.#capacity) await this.#freed(abortSignal);
    this.#held += 1;
    return {};
  }

  tryReserveSlot(): SlotPermit | null {
    if (this.#held >= this.#capacity) return null;
    this.#held += 1;
    return {};
  }

  markSlotUsed(): void {
    // Nothing to note: a slot counts from its reservation.
  }

  releaseSlot(_context: SlotReleaseContext<ActivitySlotInfo>): void {
    this.#held = Math.max(0, this.#held - 1);
    this.#wakeAll();
  }

  /** Resolves when a slot is released or the capacity changes; rejects with the signal's reason when aborted. */
  #freed(abortSignal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (abortSignal.aborted) {
        reject(abortSignal.reason as Error);
        return;
      }
      const onAbort = () => {
        this.#waiting.delete(wake);
        reject(abortSignal.reason as Error);
      };
      const wake = () => {
        abortSignal.removeEventListener('abort', onAbort);
        resolve();
      };
      this.#waiting.add(wake);
      abortSignal.addEventListener('abort', onAbort, { once: true });
    });
  }

  #wakeAll(): void {
    const waiting = [...this.#waiting];
    this.#waiting.clear();
    for (const wake of waiting) wake();
  }
}
