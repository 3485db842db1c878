/**
 * The chaos run's clock offsets reach a real process: a Node started with `clockFileEnv` reads a wall
 * clock that many seconds off this one, while its timers keep real time; and a step written while it
 * runs reaches it within a second or two (libfaketime reads the file again at most once a second).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clockFileEnv, fakeTimeLibrary, writeClockOffset } from '../../chaos/worker-clock';
import { run } from '../support/run';

const LIBRARY = fakeTimeLibrary();
// The child prints its wall clock, and how long a 300 ms timer took by the monotonic clock.
const CHILD = `const t = performance.now(); const wall = Date.now(); setTimeout(() => console.log(JSON.stringify({ wall, timerMs: performance.now() - t })), 300);`;
// The child prints its wall clock's offset from its monotonic clock, then again 2.5 s after a line on stdin.
const STEPPED_CHILD = `
const offset = () => Date.now() - (performance.timeOrigin + performance.now());
console.log(JSON.stringify({ first: offset() }));
process.stdin.once('data', () => setTimeout(() => { console.log(JSON.stringify({ later: offset() })); process.exit(0); }, 2500));`;

const clockFile = (): string => join(mkdtempSync(join(tmpdir(), 'rampflow-clock-test-')), 'offset');

describe.skipIf(!LIBRARY)(
  `a worker's clock set off${LIBRARY ? '' : ' (skipped: libfaketime is not installed; apt-get install libfaketime)'}`,
  () => {
    for (const offsetSeconds of [-6, 0, 7]) {
      it(`reads the wall clock ${offsetSeconds} s off and keeps timers on time`, async () => {
        const file = clockFile();
        writeClockOffset(file, offsetSeconds);
        const before = Date.now();
        const result = await run(process.execPath, ['-e', CHILD], {
          env: { ...process.env, ...clockFileEnv(LIBRARY!, file) },
        });
        const after = Date.now();
        expect(result.code, result.stderr).toBe(0);
        const { wall, timerMs } = JSON.parse(result.stdout) as { wall: number; timerMs: number };
        // The child read its clock between `before` and `after` of real time, shifted by the offset.
        expect(wall).toBeGreaterThanOrEqual(before + offsetSeconds * 1000);
        expect(wall).toBeLessThanOrEqual(after + offsetSeconds * 1000);
        expect(timerMs).toBeGreaterThanOrEqual(299);
        expect(timerMs).toBeLessThan(300 + Math.max(1, Math.abs(offsetSeconds)) * 1000);
      });
    }

    it('steps the wall clock of a running process, and leaves its monotonic clock alone', async () => {
      const file = clockFile();
      writeClockOffset(file, 2);
      const child = spawn(process.execPath, ['-e', STEPPED_CHILD], {
        env: { ...process.env, ...clockFileEnv(LIBRARY!, file) },
      });
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      const { first } = JSON.parse((await lines.next()).value as string) as { first: number };
      // Stepped while it runs, 7 s back.
      writeClockOffset(file, -5);
      child.stdin.write('go\n');
      const { later } = JSON.parse((await lines.next()).value as string) as { later: number };
      // The wall clock moved 7 s back against the monotonic one, give or take a read of the clocks.
      expect(Math.abs(later - first - -7_000)).toBeLessThan(250);
    });
  },
);
