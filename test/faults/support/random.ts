/**
 * A seeded random source for the fault schedule (mulberry32), so a failing run can be repeated with
 * its seed: FAULT_SEED=<seed> npm run test:faults.
 */
export function seededRandom(): { seed: number; next: () => number } {
  const seed = process.env.FAULT_SEED ? Number(process.env.FAULT_SEED) : Math.floor(Math.random() * 2 ** 31);
  return { seed, next: mulberry32(seed) };
}

/** The numbers in [0, 1) that `seed` gives, the same on every machine (the chaos run's schedule). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
