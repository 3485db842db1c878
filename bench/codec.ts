/**
 * What payload encryption costs per journey: every payload of the recorded histories of one journey
 * (the 1.0 replay corpus, test/fixtures/histories/v1.0.0: the journey, an onramp deposit and an
 * offramp deposit, recorded without a codec) sealed and opened with the codec, counting bytes and
 * time. In this process, one core.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Payload } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { EncryptionCodec, generatePayloadKey } from '../codec';
import { PayloadKeysSchema } from '../config/env';
import type { Figure } from './report';

const HISTORIES = join(__dirname, '..', 'test', 'fixtures', 'histories', 'v1.0.0');
const ONE_JOURNEY = ['journey-by-webhooks.json', 'deposit-onramp-by-polls.json', 'deposit-offramp-by-webhooks.json'];

/** Every payload in a history (inputs, results, signals, queries' absent: only what the history stores). */
function payloadsOf(node: unknown, found: Payload[] = []): Payload[] {
  if (node === null || typeof node !== 'object' || node instanceof Uint8Array) return found;
  const record = node as Record<string, unknown>;
  if (
    record.metadata &&
    typeof record.metadata === 'object' &&
    'encoding' in record.metadata &&
    record.data instanceof Uint8Array
  ) {
    found.push(record);
    return found;
  }
  for (const value of Object.values(record)) payloadsOf(value, found);
  return found;
}

const bytesOf = (payloads: Payload[]) =>
  payloads.reduce((sum, payload) => sum + temporal.api.common.v1.Payload.encode(payload).finish().length, 0);

export async function benchCodec(seconds = 3): Promise<Figure[]> {
  const payloads = ONE_JOURNEY.flatMap((file) =>
    payloadsOf(historyFromJSON(JSON.parse(readFileSync(join(HISTORIES, file), 'utf8')))),
  );
  const codec = new EncryptionCodec(PayloadKeysSchema.parse(generatePayloadKey('bench')));
  const sealed = await codec.encode(payloads);
  const plainBytes = bytesOf(payloads);
  const sealedBytes = bytesOf(sealed);

  // Warm up, then time whole journeys' worth of sealing and opening.
  for (let i = 0; i < 50; i++) await codec.decode(await codec.encode(payloads));
  let journeys = 0;
  const started = process.hrtime.bigint();
  const until = started + BigInt(seconds * 1e9);
  while (process.hrtime.bigint() < until) {
    await codec.decode(await codec.encode(payloads));
    journeys += 1;
  }
  const perJourneyMs = Number(process.hrtime.bigint() - started) / 1e6 / journeys;
  const source = `the ${payloads.length} payloads of one recorded journey with a deposit each way (test/fixtures/histories/v1.0.0)`;
  return [
    {
      name: 'payload bytes per journey, unencrypted',
      value: plainBytes / 1024,
      unit: 'KiB',
      method: `sum of ${source}, as protobuf`,
    },
    {
      name: 'payload bytes per journey, encrypted',
      value: sealedBytes / 1024,
      unit: 'KiB',
      method: `the same sealed by codec/ (AES-256-GCM: 12-byte IV, 16-byte tag, key-id metadata): +${(((sealedBytes - plainBytes) / plainBytes) * 100).toFixed(0)} %, ${((sealedBytes - plainBytes) / payloads.length).toFixed(0)} bytes a payload`,
    },
    {
      name: 'codec time per journey (seal + open every payload once)',
      value: perJourneyMs,
      unit: 'ms',
      method: `${source} encoded then decoded in a loop for ${seconds} s on one core, after 50 warm-up rounds`,
    },
  ];
}
