import { createServer } from 'node:net';

/** A TCP port that was free on 127.0.0.1 a moment ago (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolvePort(address.port);
        else reject(new Error('could not read the port the OS chose'));
      });
    });
  });
}

/**
 * A port below `limit` that was free on 127.0.0.1 a moment ago. The OS hands out ports from its
 * ephemeral range (32768 and up on Linux), but some stores keep ports as a signed 16-bit number
 * (Temporal's cluster membership table on PostgreSQL), so those must be chosen below it.
 */
export async function freePortBelow(limit: number, from = 20_000): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const candidate = from + Math.floor(Math.random() * (limit - from));
    if (await isFree(candidate)) return candidate;
  }
  throw new Error(`no free port found between ${from} and ${limit} after 100 tries`);
}

function isFree(port: number): Promise<boolean> {
  return new Promise((answer) => {
    const server = createServer();
    server.unref();
    server.once('error', () => answer(false));
    server.listen(port, '127.0.0.1', () => server.close(() => answer(true)));
  });
}
