/** Runs `work` for every item with at most `limit` in flight: load that stays bounded. */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

export const sleep = (ms: number): Promise<void> => new Promise((wake) => setTimeout(wake, ms));

/**
 * Spaces calls out to at most `perSecond` a second across everyone who awaits `turn()`: load at a
 * stated rate rather than as fast as this machine can send it.
 */
export function pacer(perSecond: number): { turn(): Promise<void> } {
  const gapMs = 1000 / perSecond;
  let nextAt = 0;
  return {
    async turn() {
      const now = Date.now();
      const at = Math.max(now, nextAt);
      nextAt = at + gapMs;
      if (at > now) await sleep(at - now);
    },
  };
}
