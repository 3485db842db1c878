/**
 * The chaos run's clock offsets reach a real process: a Node started with `clockOffEnv` reads a wall
 * clock that many seconds off this one, while its timers keep real time.
 */
import { describe, expect, it } from 'vitest';
import { clockOffEnv, fakeTimeLibrary } from '../../chaos/worker-clock';
import { run } from '../support/run';

const LIBRARY = fakeTimeLibrary();
// The child prints its wall clock, and how long a 300 ms timer took by the monotonic clock.
const CHILD = `const t = performance.now(); const wall = Date.now(); setTimeout(() => console.log(JSON.stringify({ wall, timerMs: performance.now() - t })), 300);`;

describe.skipIf(!LIBRARY)(
  `a worker's clock set off${LIBRARY ? '' : ' (skipped: libfaketime is not installed; apt-get install libfaketime)'}`,
  () => {
    for (const offsetSeconds of [-6, 7]) {
      it(`reads the wall clock ${offsetSeconds} s off and keeps timers on time`, async () => {
        const before = Date.now();
        const result = await run(process.execPath, ['-e', CHILD], {
          env: { ...process.env, ...clockOffEnv(LIBRARY!, offsetSeconds) },
        });
        const after = Date.now();
        expect(result.code, result.stderr).toBe(0);
        const { wall, timerMs } = JSON.parse(result.stdout) as { wall: number; timerMs: number };
        // The child read its clock between `before` and `after` of real time, shifted by the offset.
        expect(wall).toBeGreaterThanOrEqual(before + offsetSeconds * 1000);
        expect(wall).toBeLessThanOrEqual(after + offsetSeconds * 1000);
        expect(timerMs).toBeGreaterThanOrEqual(299);
        expect(timerMs).toBeLessThan(300 + Math.abs(offsetSeconds) * 1000);
      });
    }

    it('leaves a worker whose offset is 0 untouched', () => {
      expect(clockOffEnv(LIBRARY!, 0)).toEqual({});
    });
  },
);
