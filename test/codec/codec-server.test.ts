/** The codec server over real loopback HTTP: both ways to present the token, refusals, CORS for the Web UI. */
import { defaultPayloadConverter } from '@temporalio/common';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EncryptionCodec, generatePayloadKey } from '../../codec';
import { buildCodecServer } from '../../codec/codec-server';
import { PayloadKeysSchema } from '../../config/env';

const TOKEN = 'codec-token-0123456789abcdef';
const UI_ORIGIN = 'http://127.0.0.1:8233';
const codec = new EncryptionCodec(PayloadKeysSchema.parse(generatePayloadKey('k1')));
let server: FastifyInstance;
let base: string;

beforeAll(async () => {
  server = await buildCodecServer({ codec, token: TOKEN, corsOrigins: [UI_ORIGIN], logger: pino({ level: 'silent' }) });
  base = await server.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await server.close();
});

const toJson = (payload: { metadata?: Record<string, Uint8Array | null> | null; data?: Uint8Array | null }) => ({
  metadata: Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value!).toString('base64')]),
  ),
  data: Buffer.from(payload.data!).toString('base64'),
});

async function sealedCustomer() {
  const [sealed] = await codec.encode([defaultPayloadConverter.toPayload({ email: 'ada@example.com' })]);
  return { payloads: [toJson(sealed!)] };
}

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

function decodedData(body: { payloads: { data: string }[] }): unknown {
  return JSON.parse(Buffer.from(body.payloads[0]!.data, 'base64').toString('utf8'));
}

describe('rampflow codec-server', () => {
  it('decodes for the CLI with Authorization: Bearer, and for the Web UI with the token as a path segment', async () => {
    const body = await sealedCustomer();
    const bearer = await post('/decode', body, { authorization: `Bearer ${TOKEN}` });
    expect(bearer.status).toBe(200);
    expect(decodedData((await bearer.json()) as never)).toEqual({ email: 'ada@example.com' });
    const path = await post(`/${TOKEN}/decode`, body, { 'x-namespace': 'default' });
    expect(path.status).toBe(200);
    expect(decodedData((await path.json()) as never)).toEqual({ email: 'ada@example.com' });
  });

  it('encodes what it is given (the Web UI encodes the input of a signal or update it sends)', async () => {
    const plain = { payloads: [toJson(defaultPayloadConverter.toPayload('hello'))] };
    const encoded = (await (await post('/encode', plain, { authorization: `Bearer ${TOKEN}` })).json()) as {
      payloads: { metadata: Record<string, string> }[];
    };
    expect(Buffer.from(encoded.payloads[0]!.metadata.encoding!, 'base64').toString()).toBe('binary/encrypted');
    const decoded = (await (await post('/decode', encoded, { authorization: `Bearer ${TOKEN}` })).json()) as {
      payloads: { data: string }[];
    };
    expect(decodedData(decoded)).toBe('hello');
  });

  it('refuses callers without the token, so they see ciphertext', async () => {
    const body = await sealedCustomer();
    expect((await post('/decode', body)).status).toBe(401);
    expect((await post('/decode', body, { authorization: 'Bearer not-the-token' })).status).toBe(401);
    expect((await post('/wrong-token-0123456789/decode', body)).status).toBe(404);
    expect((await post('/encode', body)).status).toBe(401);
  });

  it('answers a malformed body with 400 and an undecryptable payload with 422 naming only the key id', async () => {
    expect((await post('/decode', { nope: true }, { authorization: `Bearer ${TOKEN}` })).status).toBe(400);
    const [foreign] = await new EncryptionCodec(PayloadKeysSchema.parse(generatePayloadKey('other'))).encode([
      defaultPayloadConverter.toPayload('x'),
    ]);
    const refused = await post('/decode', { payloads: [toJson(foreign!)] }, { authorization: `Bearer ${TOKEN}` });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toEqual({
      error: "cannot decrypt a payload sealed with key id 'other': it is not in RAMPFLOW_PAYLOAD_KEYS",
    });
  });

  it("allows the Web UI's origin (preflight included) and no other", async () => {
    const preflight = await fetch(`${base}/${TOKEN}/decode`, {
      method: 'OPTIONS',
      headers: {
        origin: UI_ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-namespace',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/X-Namespace/i);
    const actual = await post(`/${TOKEN}/decode`, await sealedCustomer(), { origin: UI_ORIGIN });
    expect(actual.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    const stranger = await post(`/${TOKEN}/decode`, await sealedCustomer(), { origin: 'http://evil.example' });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
  });
});
