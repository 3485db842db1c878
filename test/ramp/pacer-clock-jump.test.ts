/**
 * The pacer keeps its calls per second when the host's wall clock steps forward while places are held
 * (found by reasoning from the chaos run's clock jumps): a place freed by the wall clock would free
 * as soon as the clock jumps past it, and a second would hold twice the share. A real process under
 * libfaketime makes its 2 calls, steps its own clock, makes 2 more 300 ms in, and tells when each
 * attempt started by its monotonic clock, which the step leaves alone: a place is held from an
 * attempt's start, so at most 2 start in any second. (Stamped on arrival here instead, a stall of this process could crowd
 * arrivals into one second that the client had spread.)
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clockFileEnv, fakeTimeLibrary, writeClockOffset } from '../../chaos/worker-clock';
import { run } from '../support/run';
import { startSignedServer, success, type SignedServer } from './support/signed-server';

const LIBRARY = fakeTimeLibrary();
const CHILD = join(__dirname, 'support', 'paced-calls-in-child.ts');
const servers: SignedServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** The most attempts started within any one second. */
function busiestSecond(starts: number[]): number {
  return Math.max(...starts.map((at) => starts.filter((other) => other >= at && other < at + 1_000).length));
}

describe.skipIf(!LIBRARY)(
  `the pacer on a host whose clock steps${LIBRARY ? '' : ' (skipped: libfaketime is not installed; apt-get install libfaketime)'}`,
  () => {
    it('lets no more than its calls a second through when the wall clock jumps 8 s ahead', async () => {
      const server = await startSignedServer('secret', () => success([]));
      servers.push(server);
      const clockFile = join(mkdtempSync(join(tmpdir(), 'rampflow-pacer-clock-')), 'offset');
      writeClockOffset(clockFile, 0);
      const result = await run(process.execPath, ['--import', 'tsx', CHILD, server.url, clockFile, '8'], {
        // Read at every look here (not once a second, as a chaos worker does), so the step lands at once.
        env: { ...process.env, ...clockFileEnv(LIBRARY!, clockFile), FAKETIME_NO_CACHE: '1' },
        timeoutMs: 30_000,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(server.requests).toHaveLength(4);
      const starts = JSON.parse(result.stdout) as number[];
      expect(starts).toHaveLength(4);
      expect(busiestSecond(starts)).toBeLessThanOrEqual(2);
    });
  },
);
