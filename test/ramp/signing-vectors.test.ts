/**
 * The shared signing vectors (test/fixtures/signing-vectors.json): the signing functions reproduce
 * every canonical string and signature, a reference verifier accepts and rejects exactly as each
 * vector says, and the real client, replaying each accepted request, puts those exact bytes and
 * that exact signature on the wire.
 */
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { RampHttpClient } from '../../ramp/http-client';
import { canonicalString, signaturesMatch, signCanonical, splitRequestTarget, bodySha256Hex } from '../../ramp/signing';
import { loadSigningVectors, type SigningVector } from '../support/signing-vectors';

const fixture = loadSigningVectors();

function bodyBytes(vector: SigningVector): Buffer {
  return Buffer.from(vector.request.body, vector.request.bodyEncoding);
}

function isMultipart(vector: SigningVector): boolean {
  return (vector.request.contentType ?? '').startsWith('multipart/form-data');
}

/** What a verifier rebuilds from the request as it arrived. */
function rebuildCanonical(vector: SigningVector): string {
  const { path, query } = splitRequestTarget(vector.request.target);
  return canonicalString({
    method: vector.request.method,
    host: vector.request.host,
    path,
    query,
    bodySha256Hex: isMultipart(vector) ? '' : bodySha256Hex(bodyBytes(vector)),
    timestamp: vector.request.timestamp,
    nonce: vector.request.nonce,
  });
}

/** A minimal verifier with the interface's rules and DESIGN's 60 s skew. */
function verify(vector: SigningVector): 'accept' | 'reject' {
  const expected = signCanonical(vector.secret, rebuildCanonical(vector));
  if (!signaturesMatch(expected, vector.request.signature)) return 'reject';
  const timestamp = Number(vector.request.timestamp);
  return Math.abs(timestamp - vector.verifierNowSeconds) <= fixture.acceptedClockSkewSeconds ? 'accept' : 'reject';
}

describe('signing vectors', () => {
  it('cover accepts and every required kind of reject', () => {
    const reasons = fixture.vectors.filter((vector) => vector.expect === 'reject').map((vector) => vector.reason ?? '');
    expect(fixture.vectors.filter((vector) => vector.expect === 'accept').length).toBeGreaterThanOrEqual(10);
    for (const topic of ['milliseconds', 'lowercase hex', 're-ordered', 're-serialised']) {
      expect(
        reasons.some((reason) => reason.includes(topic)),
        topic,
      ).toBe(true);
    }
  });

  it.each(fixture.vectors.map((vector) => [vector.name, vector] as const))(
    '%s: canonical string and signature',
    (_name, vector) => {
      expect(rebuildCanonical(vector)).toBe(vector.expectedCanonical);
      expect(signCanonical(vector.secret, vector.expectedCanonical)).toBe(vector.expectedSignature);
    },
  );

  it.each(fixture.vectors.map((vector) => [vector.name, vector] as const))('%s: verifier outcome', (_name, vector) => {
    expect(verify(vector)).toBe(vector.expect);
  });
});

describe('the client replaying each accepted vector', () => {
  const agents: MockAgent[] = [];
  afterEach(async () => {
    await Promise.all(agents.splice(0).map((agent) => agent.close()));
  });

  const accepted = fixture.vectors.filter((vector) => vector.expect === 'accept');
  it.each(accepted.map((vector) => [vector.name, vector] as const))('%s', async (_name, vector) => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agents.push(agent);
    const seen: { path: string; headers: Record<string, string>; body: Buffer | undefined }[] = [];
    agent
      .get(`${vector.request.scheme}://${vector.request.host}`)
      .intercept({ path: () => true, method: vector.request.method })
      .reply((options) => {
        seen.push({
          path: options.path,
          headers: options.headers as Record<string, string>,
          body: options.body === undefined || options.body === null ? undefined : Buffer.from(options.body as Buffer),
        });
        return { statusCode: 200, data: { status: 'SUCCESS', data: null } };
      });
    const client = new RampHttpClient({
      baseUrl: `${vector.request.scheme}://${vector.request.host}`,
      apiKey: vector.apiKey,
      apiSecret: vector.secret,
      dispatcher: agent,
      now: () => Number(vector.request.timestamp) * 1000,
      newNonce: () => vector.request.nonce,
    });
    const { path, query } = splitRequestTarget(vector.request.target);
    const bytes = bodyBytes(vector);
    await client.send({
      method: vector.request.method,
      path,
      query,
      body:
        bytes.length === 0
          ? undefined
          : { bytes, contentType: vector.request.contentType ?? 'application/json', hashed: !isMultipart(vector) },
    });

    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request?.path).toBe(vector.request.target);
    expect(request?.headers.host).toBe(vector.request.host);
    expect(request?.headers['x-api-key']).toBe(vector.apiKey);
    expect(request?.headers['x-timestamp']).toBe(vector.request.timestamp);
    expect(request?.headers['x-nonce']).toBe(vector.request.nonce);
    expect(request?.headers['x-signature']).toBe(vector.expectedSignature);
    expect(Buffer.compare(request?.body ?? Buffer.alloc(0), bytes)).toBe(0);
  });
});
