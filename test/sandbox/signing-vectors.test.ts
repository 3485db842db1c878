/**
 * Replays the client's shared signing vectors (test/fixtures/signing-vectors.json) against the
 * sandbox over HTTP: every request marked "accept" passes authentication (whatever the endpoint
 * then says about its parameters), and every one marked "reject" is answered UNAUTHORISED. Each
 * vector gets its own sandbox whose wall clock reads the vector's verifier time, and the Host header
 * is sent as recorded (the canonical string covers it).
 */
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../sandbox';
import { SignedClient } from './support/signed-client';
import { loadSigningVectors } from '../support/signing-vectors';

const fixture = loadSigningVectors();

describe('the shared signing vectors, replayed against the sandbox', () => {
  it('has vectors of both kinds', () => {
    expect(fixture.vectors.some((vector) => vector.expect === 'accept')).toBe(true);
    expect(fixture.vectors.some((vector) => vector.expect === 'reject')).toBe(true);
  });

  it.each(fixture.vectors.map((vector) => [vector.name, vector] as const))('%s', async (_name, vector) => {
    const sandbox = await createSandbox({
      partners: [{ apiKey: vector.apiKey, apiSecret: vector.secret }],
      acceptedSkewSeconds: fixture.acceptedClockSkewSeconds,
      wallClock: () => vector.verifierNowSeconds * 1000,
    });
    try {
      const client = new SignedClient(sandbox.url, vector.apiKey, vector.secret);
      const { request } = vector;
      const response = await client.send({
        method: request.method,
        target: request.target,
        host: request.host,
        timestamp: request.timestamp,
        nonce: request.nonce,
        signature: request.signature,
        ...(request.body === '' ? {} : { body: Buffer.from(request.body, request.bodyEncoding) }),
        ...(request.contentType === null ? {} : { contentType: request.contentType }),
      });
      if (vector.expect === 'accept') expect(response.json?.status, response.text).not.toBe('UNAUTHORISED');
      else expect(response.json?.status, response.text).toBe('UNAUTHORISED');
    } finally {
      await sandbox.close();
    }
  });
});
