/**
 * Sealing partner events at rest: an event's body (its whole JSON) is sealed with the payload keys
 * (RAMPFLOW_PAYLOAD_KEYS) by the same codec that seals Temporal payloads, so one key rotation covers
 * both: new rows are sealed with the first key, and any configured key still opens old rows.
 *
 * The sealed bytes are the codec's Payload (its metadata names the key id) in protobuf form. Opening
 * checks the event inside is the row's own (same id and stream), so a body copied onto another row
 * is refused rather than shown as that row's event.
 */
import type { Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { PayloadKey } from '../config/env';
import { ENCRYPTED_ENCODING, EncryptionCodec } from '../codec/encryption-codec';
import { streamOf, type PartnerEvent, type PartnerEventStream } from './catalogue';

const BODY_ENCODING = 'json/plain';
const utf8 = new TextEncoder();

export class PartnerEventSealer {
  private readonly codec: EncryptionCodec;

  constructor(payloadKeys: readonly PayloadKey[]) {
    this.codec = new EncryptionCodec(payloadKeys);
  }

  async seal(event: PartnerEvent): Promise<Uint8Array> {
    const plain: Payload = {
      metadata: { encoding: utf8.encode(BODY_ENCODING) },
      data: utf8.encode(JSON.stringify(event)),
    };
    const [sealed] = await this.codec.encode([plain]);
    return temporal.api.common.v1.Payload.encode(sealed!).finish();
  }

  /** The event sealed in `body`, which must be the event stored as `id` in `stream`. */
  async open(body: Uint8Array, row: { id: string; stream: string }): Promise<PartnerEvent> {
    const stored = temporal.api.common.v1.Payload.decode(body);
    // The codec passes unsealed payloads through (histories from before encryption); a stored event
    // body is always sealed, so an unsealed one was written by something else and is refused.
    if (Buffer.from(stored.metadata?.encoding ?? []).toString() !== ENCRYPTED_ENCODING) {
      throw new Error(`partner event ${row.id}: its stored body is not sealed`);
    }
    // The codec's own errors name only the key id (never a body), so they may travel as they are.
    const [plain] = await this.codec.decode([stored]);
    if (Buffer.from(plain?.metadata?.encoding ?? []).toString() !== BODY_ENCODING) {
      throw new Error(`partner event ${row.id}: its sealed body is not an event`);
    }
    let event: PartnerEvent;
    try {
      event = JSON.parse(Buffer.from(plain!.data ?? []).toString('utf8')) as PartnerEvent;
    } catch {
      // JSON.parse's own message quotes the text, which is customer data.
      throw new Error(`partner event ${row.id}: its sealed body is not valid JSON`);
    }
    if (event.id !== row.id || streamOf(event) !== (row.stream as PartnerEventStream)) {
      throw new Error(`partner event ${row.id}: its sealed body belongs to another event`);
    }
    return event;
  }
}
