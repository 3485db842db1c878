/**
 * The event keys a workflow has applied, for applying each event at most once. Bounded: state only
 * moves forward (workflows/common/status-order.ts), so an event older than the window that is delivered again
 * can move nothing; the window only saves repeating work for the usual redeliveries, which come
 * within days and a handful of events.
 */
export const APPLIED_KEYS_WINDOW = 200;

export class AppliedKeys {
  private readonly keys: string[];
  private readonly set: Set<string>;

  constructor(
    carried: readonly string[] = [],
    private readonly window = APPLIED_KEYS_WINDOW,
  ) {
    this.keys = carried.slice(-window);
    this.set = new Set(this.keys);
  }

  /** Runs `apply` unless `key` was applied already (within the window). */
  applyOnce(key: string, apply: () => void): void {
    if (this.set.has(key)) return;
    this.keys.push(key);
    this.set.add(key);
    if (this.keys.length > this.window) this.set.delete(this.keys.shift()!);
    apply();
  }

  /** What a continued run carries, oldest first. */
  carry(): string[] {
    return [...this.keys];
  }
}
