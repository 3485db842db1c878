/**
 * A child for test/ramp/pacer-clock-jump.test.ts: a client allowed 2 calls a second sends two GETs,
 * then steps its own wall clock forward (it runs under libfaketime, reading its offset from the file
 * named here, as a chaos worker's does), and 300 ms after its first calls sends two more, as new
 * activities arrive at a busy worker. It prints when each attempt started, on its monotonic clock
 * (libfaketime leaves that one alone), as a JSON array.
 * Arguments: the server's URL, the clock file, the step in seconds.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { writeClockOffset } from '../../../chaos/worker-clock';
import { RampHttpClient } from '../../../ramp/http-client';

async function main(): Promise<void> {
  const [baseUrl, clockFile, stepSeconds] = process.argv.slice(2);
  const starts: number[] = [];
  const client = new RampHttpClient({
    baseUrl: baseUrl!,
    apiKey: 'key-1',
    apiSecret: 'secret',
    maxCallsPerSecond: 2,
    onAttempt: ({ seconds }) => starts.push(performance.now() - seconds * 1000),
  });
  const call = () => client.request({ method: 'GET', path: '/customer/list' }, z.unknown());
  const firstAt = performance.now();
  await Promise.all([call(), call()]);
  writeClockOffset(clockFile!, Number(stepSeconds));
  await sleep(Math.max(0, firstAt + 300 - performance.now()));
  await Promise.all([call(), call()]);
  await client.close();
  console.log(JSON.stringify(starts));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
