/**
 * Properties of signing: any change to any one of the seven canonical values changes the signature;
 * and, end to end through a loopback server, the bytes that arrive hash to the signed body line.
 */
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex } from '@noble/hashes/utils';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RampHttpClient, jsonBody } from '../../ramp/http-client';
import { buildRawQuery } from '../../ramp/query';
import { canonicalString, signCanonical, type CanonicalParts } from '../../ramp/signing';
import { startSignedServer, type SignedServer } from './support/signed-server';

const FIELDS = ['method', 'host', 'path', 'query', 'bodySha256Hex', 'timestamp', 'nonce'] as const;

/** Values as they occur: no line feed inside a value (the canonical string joins them with one). */
const lineValue = fc.string({ unit: 'grapheme', maxLength: 40 }).filter((value) => !value.includes('\n'));
const canonicalParts: fc.Arbitrary<CanonicalParts> = fc.record({
  method: fc.constantFrom('GET', 'POST'),
  host: lineValue,
  path: lineValue,
  query: lineValue,
  bodySha256Hex: fc.oneof(
    fc.constant(''),
    fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => bytesToHex(bytes)),
  ),
  timestamp: fc.integer({ min: 0, max: 4_102_444_800 }).map(String),
  nonce: fc.uuid(),
});

describe('signature', () => {
  it('changes when any one of the seven values changes', () => {
    fc.assert(
      fc.property(
        canonicalParts,
        fc.constantFrom(...FIELDS),
        lineValue,
        fc.string({ minLength: 1, maxLength: 64 }),
        (parts, field, replacement, secret) => {
          const changed = { ...parts, [field]: replacement };
          // METHOD is upper-cased, so "get" and "GET" are the same value.
          fc.pre(field === 'method' ? replacement.toUpperCase() !== parts.method : replacement !== parts[field]);
          expect(signCanonical(secret, canonicalString(changed))).not.toBe(
            signCanonical(secret, canonicalString(parts)),
          );
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('is lowercase hex of 32 bytes', () => {
    fc.assert(
      fc.property(canonicalParts, fc.string({ minLength: 1 }), (parts, secret) => {
        expect(signCanonical(secret, canonicalString(parts))).toMatch(/^[0-9a-f]{64}$/);
      }),
    );
  });
});

describe('the bytes sent', () => {
  const SECRET = 'property-secret';
  let server: SignedServer;
  let client: RampHttpClient;
  const canonicals: string[] = [];

  beforeAll(async () => {
    server = await startSignedServer(SECRET, () => ({ json: { status: 'SUCCESS', data: null } }));
    client = new RampHttpClient({
      baseUrl: server.url,
      apiKey: 'k',
      apiSecret: SECRET,
      onCanonicalString: (canonical) => canonicals.push(canonical),
    });
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it('hash to the signed body line, and the query arrives as signed', async () => {
    const queryParameters = fc.array(
      fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), fc.string({ maxLength: 12 })),
      { maxLength: 4 },
    );
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), queryParameters, async (value, parameters) => {
        const body = jsonBody(value);
        const query = buildRawQuery(parameters);
        await client.send({ method: 'POST', path: '/payment/estimate', query, body });
        const arrived = server.requests.at(-1);
        const signed = canonicals.at(-1)?.split('\n') ?? [];
        expect(bytesToHex(sha256(arrived?.body ?? new Uint8Array()))).toBe(signed[4]);
        expect(arrived?.query).toBe(signed[3]);
        expect(arrived?.query).toBe(query);
        expect(arrived?.signatureValid).toBe(true);
        // The query round-trips to the parameters, in order.
        expect([...new URLSearchParams(arrived?.query)]).toEqual(parameters);
      }),
      { numRuns: 60 },
    );
  });
});
