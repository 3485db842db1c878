/** Bounded polls of state: the fault cases wait for outcomes, never for a fixed time. */

export const pause = (ms: number): Promise<void> => new Promise((wake) => setTimeout(wake, ms));

/**
 * Calls `probe` until it returns a value (not undefined); fails after `timeoutMs` with `what` and the
 * description of the last state `describe` gives, so a hang says where it stuck.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options: { timeoutMs: number; intervalMs?: number; describe?: () => Promise<string> | string },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      const last = options.describe ? `; last seen: ${await options.describe()}` : '';
      throw new Error(`${what} did not happen within ${options.timeoutMs / 1000} s${last}`);
    }
    await pause(options.intervalMs ?? 250);
  }
}
