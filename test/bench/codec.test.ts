/**
 * The codec benchmark (bench/codec.ts) reads one journey's payloads from the replay corpus: it must
 * find them (it once read files the corpus had moved, and failed the whole table), and its figures must
 * say what sealing adds.
 */
import { describe, expect, it } from 'vitest';
import { benchCodec } from '../../bench/codec';

describe('the codec benchmark', () => {
  it("seals and opens one recorded journey's payloads, each sealed payload larger by its IV, tag and key id", async () => {
    const [plain, sealed, time] = await benchCodec(0.05);
    expect(plain!.name).toBe('payload bytes per journey, unencrypted');
    // A journey with a deposit each way stores tens of KiB of payloads.
    expect(plain!.value).toBeGreaterThan(10);
    expect(sealed!.value).toBeGreaterThan(plain!.value);
    expect(sealed!.method).toMatch(/\+\d+ %, \d+ bytes a payload/);
    expect(time!.value).toBeGreaterThan(0);
    expect(time!.method).toMatch(/^the \d+ payloads of one recorded journey/);
  });
});
