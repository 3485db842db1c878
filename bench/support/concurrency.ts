/** Runs `work` for every item with at most `limit` in flight: load that stays bounded. */
export async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
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
