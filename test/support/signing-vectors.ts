/**
 * The shared signing vectors (test/fixtures/signing-vectors.json): recorded requests with the
 * canonical string and signature they must produce, each to be accepted or rejected by a verifier.
 * The client's tests and the sandbox's verifier tests both replay them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SigningVector {
  name: string;
  apiKey: string;
  secret: string;
  request: {
    method: 'GET' | 'POST';
    scheme: 'http' | 'https';
    host: string;
    target: string;
    contentType: string | null;
    body: string;
    bodyEncoding: 'utf8' | 'base64';
    timestamp: string;
    nonce: string;
    signature: string;
  };
  /** The verifier's wall clock, in seconds, when it checks the vector. */
  verifierNowSeconds: number;
  expectedCanonical: string;
  expectedSignature: string;
  expect: 'accept' | 'reject';
  reason?: string;
}

export interface SigningVectorFile {
  acceptedClockSkewSeconds: number;
  vectors: SigningVector[];
}

export function loadSigningVectors(): SigningVectorFile {
  return JSON.parse(
    readFileSync(join(__dirname, '..', 'fixtures', 'signing-vectors.json'), 'utf8'),
  ) as SigningVectorFile;
}
