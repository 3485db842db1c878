/**
 * The pacer keeps its calls per second when the host's wall clock steps forward while places are held
 * (found by reasoning from the chaos run's clock jumps): a place freed by the wall clock would free
 * as soon as the clock jumps past it, and a second would hold twice the share. A real process under
 * libfaketime steps its own clock after its third call; the server stamps arrivals by its own
 * monotonic clock.
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

/** The most arrivals within any one second. */
function busiestSecond(arrivals: number[]): number {
  return Math.max(...arrivals.map((at) => arrivals.filter((other) => other >= at && other < at + 1_000).length));
}

describe.skipIf(!LIBRARY)(
  `the pacer on a host whose clock steps${LIBRARY ? '' : ' (skipped: libfaketime is not installed; apt-get install libfaketime)'}`,
  () => {
    it('lets no more than its calls a second through when the wall clock jumps 8 s ahead', async () => {
      const arrivals: number[] = [];
      const server = await startSignedServer('secret', () => {
        arrivals.push(performance.now());
        return success([]);
      });
      servers.push(server);
      const clockFile = join(mkdtempSync(join(tmpdir(), 'rampflow-pacer-clock-')), 'offset');
      writeClockOffset(clockFile, 0);
      const result = await run(process.execPath, ['--import', 'tsx', CHILD, server.url, clockFile, '8'], {
        env: { ...process.env, ...clockFileEnv(LIBRARY!, clockFile) },
        timeoutMs: 30_000,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(arrivals).toHaveLength(10);
      expect(busiestSecond(arrivals)).toBeLessThanOrEqual(2);
    });
  },
);
