/** The payload codec: sealing, rotation, plain payloads from before encryption, and its keys' configuration. */
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import {
  ENCRYPTED_ENCODING,
  EncryptionCodec,
  generatePayloadKey,
  KEY_ID_METADATA,
  payloadKeysFromEnv,
} from '../../codec';
import { ConfigError, PayloadKeysSchema } from '../../config/env';

const keys = (text: string) => PayloadKeysSchema.parse(text);
const CUSTOMER = { realName: 'Ada Lovelace', email: 'ada@example.com', accountNo: '987654321' };
const plain = (value: unknown): Payload => defaultPayloadConverter.toPayload(value);
const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('utf8');

describe('EncryptionCodec', () => {
  it('seals a payload under the first key, naming it in the metadata, and opens it again', async () => {
    const codec = new EncryptionCodec(keys(`${generatePayloadKey('k2')},${generatePayloadKey('k1')}`));
    const [sealed] = await codec.encode([plain(CUSTOMER)]);
    expect(text(sealed!.metadata!.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(text(sealed!.metadata![KEY_ID_METADATA])).toBe('k2');
    expect(Buffer.from(sealed!.data!).toString('latin1')).not.toContain('Ada');
    const [opened] = await codec.decode([sealed!]);
    expect(defaultPayloadConverter.fromPayload(opened!)).toEqual(CUSTOMER);
  });

  it('rotates without downtime: a payload sealed with the old key opens once a new key comes first', async () => {
    const oldKey = generatePayloadKey('2025');
    const [sealedBefore] = await new EncryptionCodec(keys(oldKey)).encode([plain(CUSTOMER)]);
    const rotated = new EncryptionCodec(keys(`${generatePayloadKey('2026')},${oldKey}`));
    expect(defaultPayloadConverter.fromPayload((await rotated.decode([sealedBefore!]))[0]!)).toEqual(CUSTOMER);
    const [sealedAfter] = await rotated.encode([plain(CUSTOMER)]);
    expect(text(sealedAfter!.metadata![KEY_ID_METADATA])).toBe('2026');
    // Once the old key is dropped, its payloads cannot be read: the error says which key is missing.
    await expect(new EncryptionCodec(keys(generatePayloadKey('2026'))).decode([sealedBefore!])).rejects.toThrow(
      "cannot decrypt a payload sealed with key id '2025': it is not in RAMPFLOW_PAYLOAD_KEYS",
    );
  });

  it('passes plain payloads through on decode, so histories from before encryption stay readable', async () => {
    const codec = new EncryptionCodec(keys(generatePayloadKey('k1')));
    const unencrypted = plain(CUSTOMER);
    expect(await codec.decode([unencrypted])).toEqual([unencrypted]);
  });

  it('refuses an altered payload, a payload relabelled to another key, and the wrong key under the right id', async () => {
    const key = generatePayloadKey('k1');
    const codec = new EncryptionCodec(keys(`${key},${generatePayloadKey('k0')}`));
    const [sealed] = await codec.encode([plain(CUSTOMER)]);
    const altered = Buffer.from(sealed!.data!);
    altered[20] = altered[20]! ^ 1;
    await expect(codec.decode([{ ...sealed!, data: altered }])).rejects.toThrow(
      /the key does not match or the payload was altered/,
    );
    const relabelled = { ...sealed!, metadata: { ...sealed!.metadata, [KEY_ID_METADATA]: Buffer.from('k0') } };
    await expect(codec.decode([relabelled])).rejects.toThrow(/key id 'k0': the key does not match/);
    await expect(new EncryptionCodec(keys(generatePayloadKey('k1'))).decode([sealed!])).rejects.toThrow(
      /the key does not match/,
    );
  });

  it('uses a fresh IV for every payload', async () => {
    const codec = new EncryptionCodec(keys(generatePayloadKey('k1')));
    const [a, b] = await codec.encode([plain(CUSTOMER), plain(CUSTOMER)]);
    expect(Buffer.from(a!.data!).equals(Buffer.from(b!.data!))).toBe(false);
  });

  it('never repeats an IV, across the refills of its block of random bytes, and each payload still opens', async () => {
    const codec = new EncryptionCodec(keys(generatePayloadKey('k1')));
    // Several batches, so the block of 256 IVs is refilled between and within calls.
    const batches = await Promise.all(
      Array.from({ length: 5 }, () => codec.encode(Array.from({ length: 300 }, () => plain(CUSTOMER)))),
    );
    const sealed = batches.flat();
    const ivs = new Set(sealed.map((payload) => Buffer.from(payload.data!).subarray(0, 12).toString('hex')));
    expect(ivs.size).toBe(1500);
    const opened = await codec.decode(sealed);
    expect(opened.every((payload) => Buffer.from(payload.data!).equals(Buffer.from(plain(CUSTOMER).data!)))).toBe(true);
  });
});

describe('RAMPFLOW_PAYLOAD_KEYS', () => {
  const problemOf = (value: string | undefined) => {
    try {
      payloadKeysFromEnv({ RAMPFLOW_PAYLOAD_KEYS: value });
      return undefined;
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).problems;
    }
  };

  it('reads several keys, the first of which encrypts', () => {
    const parsed = payloadKeysFromEnv({
      RAMPFLOW_PAYLOAD_KEYS: `${generatePayloadKey('new')}, ${generatePayloadKey('old')}`,
    });
    expect(parsed.map(({ id, key }) => [id, key.length])).toEqual([
      ['new', 32],
      ['old', 32],
    ]);
  });

  it('fails with one clear line when missing or malformed, never echoing a key', () => {
    const secret = randomBytes(16).toString('base64');
    expect(problemOf(undefined)).toEqual(['RAMPFLOW_PAYLOAD_KEYS: is required']);
    expect(problemOf('')).toEqual(['RAMPFLOW_PAYLOAD_KEYS: is required']);
    const tooShort = problemOf(`k1:${secret}`);
    expect(tooShort).toHaveLength(1);
    expect(tooShort![0]).toMatch(
      /^RAMPFLOW_PAYLOAD_KEYS: key k1 is not the base64 of 32 bytes; expected <keyId>:<base64 of 32 bytes>.*openssl rand -base64 32/,
    );
    expect(tooShort![0]).not.toContain(secret);
    expect(problemOf(randomBytes(32).toString('base64'))![0]).toMatch(/key 1 has no valid id/);
    const twice = generatePayloadKey('k1');
    expect(problemOf(`${twice},${twice}`)![0]).toMatch(/key id k1 appears twice/);
  });
});
