/**
 * A child for test/ramp/pacer-clock-jump.test.ts: a client allowed 2 calls a second sends 10 GETs from
 * three callers at once, and after its third call steps its own wall clock forward (it runs under
 * libfaketime, reading its offset from the file named here, as a chaos worker's does).
 * Arguments: the server's URL, the clock file, the jump in seconds.
 */
import { writeFileSync } from 'node:fs';
import { z } from 'zod';
import { RampHttpClient } from '../../../ramp/http-client';

const CALLS = 10;

async function main(): Promise<void> {
  const [baseUrl, clockFile, jumpSeconds] = process.argv.slice(2);
  const client = new RampHttpClient({ baseUrl: baseUrl!, apiKey: 'key-1', apiSecret: 'secret', maxCallsPerSecond: 2 });
  let started = 0;
  const caller = async (): Promise<void> => {
    while (started < CALLS) {
      started += 1;
      if (started === 3) writeFileSync(clockFile!, `+${jumpSeconds}s\n`);
      await client.request({ method: 'GET', path: '/customer/list' }, z.unknown());
    }
  };
  await Promise.all([caller(), caller(), caller()]);
  await client.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
