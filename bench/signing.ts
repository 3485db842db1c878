/**
 * How fast the client signs: canonical string, body hash and HMAC for a typical request, as the
 * client does on every attempt. Single-threaded, in this process.
 */
import { randomUUID } from 'node:crypto';
import { bodySha256Hex, canonicalString, signCanonical } from '../ramp/signing';
import type { Figure } from './report';

const SECRET = 'bench-secret-0123456789abcdef';
const BODY = Buffer.from(JSON.stringify({ from: { customerId: randomUUID(), currency: 'AUD' }, to: randomUUID() }));

function signOnce(nonce: string, withBody: boolean): string {
  const canonical = canonicalString({
    method: withBody ? 'POST' : 'GET',
    host: 'api.example.com',
    path: withBody ? '/autoramp-flow/onramp' : '/deposit/list',
    query: withBody ? '' : 'pageNum=1&pageSize=100&customerId=7d5c1c7e-3b8e-4a55-9d1f-8f2f5d7c6b1a',
    bodySha256Hex: withBody ? bodySha256Hex(BODY) : '',
    timestamp: '1795000000',
    nonce,
  });
  return signCanonical(SECRET, canonical);
}

function rate(withBody: boolean, seconds: number): number {
  const nonces = Array.from({ length: 1024 }, () => randomUUID());
  // Warm up the JIT before timing.
  for (let i = 0; i < 20_000; i++) signOnce(nonces[i % nonces.length]!, withBody);
  let count = 0;
  const started = process.hrtime.bigint();
  const until = started + BigInt(Math.round(seconds * 1e9));
  let now = started;
  while (now < until) {
    for (let i = 0; i < 1000; i++) signOnce(nonces[(count + i) % nonces.length]!, withBody);
    count += 1000;
    now = process.hrtime.bigint();
  }
  return count / (Number(now - started) / 1e9);
}

export function benchSigning(seconds = 3): Figure[] {
  const getRate = rate(false, seconds);
  const postRate = rate(true, seconds);
  return [
    {
      name: 'signatures per second (GET with query)',
      value: getRate,
      unit: '/s',
      method: `canonicalString + HMAC-SHA256 in a loop for ${seconds} s on one core, after 20k warm-up`,
      target: '>= 100,000',
      met: getRate >= 100_000,
    },
    {
      name: 'signatures per second (POST, JSON body hashed)',
      value: postRate,
      unit: '/s',
      method: `as above, plus SHA-256 of a ${BODY.length}-byte JSON body`,
      target: '>= 100,000',
      met: postRate >= 100_000,
    },
  ];
}
