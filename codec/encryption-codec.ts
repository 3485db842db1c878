/**
 * The payload codec every rampflow process gives Temporal: each payload is sealed with AES-256-GCM
 * under the first configured key, and the key's id travels in the payload's metadata so any
 * configured key can open it again (rotation without downtime, docs/deploying/customer-data-and-keys.md).
 *
 * Codecs run in the worker's main thread and in clients, never in the workflow sandbox, so
 * node:crypto is fine here.
 */
import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { PayloadKey } from '../config/env';

/** The metadata values that mark a sealed payload. Plain payloads (histories from before encryption) pass through. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const ALGORITHM = 'aes-256-gcm';
/** IVs drawn from the system's random source in one call (IvSource). */
const IVS_PER_DRAW = 256;

const encoder = new TextEncoder();
const utf8 = (text: string) => encoder.encode(text);
const text = (bytes: Uint8Array | null | undefined) => (bytes ? Buffer.from(bytes).toString('utf8') : undefined);

/**
 * Fresh IVs, IV_BYTES at a time, from a block of random bytes filled in one call to the system's
 * random source. Every payload of every workflow task is sealed: asking the source once per payload
 * was about 2 % of a busy worker's main thread. Each byte is handed out once, so the IVs stay as
 * unpredictable, and as unlikely to repeat, as one `randomBytes(12)` each.
 */
class IvSource {
  private readonly block = Buffer.alloc(IV_BYTES * IVS_PER_DRAW);
  private next = this.block.length;

  /** A view into the block: use it before asking again (the block is refilled once handed out). */
  take(): Buffer {
    if (this.next === this.block.length) {
      randomFillSync(this.block);
      this.next = 0;
    }
    const iv = this.block.subarray(this.next, this.next + IV_BYTES);
    this.next += IV_BYTES;
    return iv;
  }
}

export class EncryptionCodec implements PayloadCodec {
  private readonly encryptWith: PayloadKey;
  private readonly keysById: ReadonlyMap<string, Buffer>;
  private readonly ivs = new IvSource();

  constructor(keys: readonly PayloadKey[]) {
    const [first] = keys;
    if (!first) throw new Error('the payload codec needs at least one key');
    this.encryptWith = first;
    this.keysById = new Map(keys.map(({ id, key }) => [id, key]));
  }

  /** The id of the key new payloads are sealed with. */
  get currentKeyId(): string {
    return this.encryptWith.id;
  }

  // node:crypto's AES-GCM is synchronous; the interface is not, so errors become rejections.
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.seal(payload));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.open(payload));
  }

  private seal(payload: Payload): Payload {
    const { id, key } = this.encryptWith;
    // createCipheriv and Buffer.concat both copy the IV, so the view is not kept.
    const iv = this.ivs.take();
    const cipher = createCipheriv(ALGORITHM, key, iv);
    // The key id is authenticated too, so a payload cannot be relabelled to another key.
    cipher.setAAD(utf8(id));
    const plain = temporal.api.common.v1.Payload.encode(payload).finish();
    const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return { metadata: { encoding: utf8(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: utf8(id) }, data: sealed };
  }

  private open(payload: Payload): Payload {
    if (text(payload.metadata?.encoding) !== ENCRYPTED_ENCODING) return payload;
    const id = text(payload.metadata?.[KEY_ID_METADATA]);
    const key = id === undefined ? undefined : this.keysById.get(id);
    // Names the key id (not secret) so an operator knows which key to add back to RAMPFLOW_PAYLOAD_KEYS.
    if (!key)
      throw new Error(
        `cannot decrypt a payload sealed with key id '${id ?? '(none)'}': it is not in RAMPFLOW_PAYLOAD_KEYS`,
      );
    const sealed = Buffer.from(payload.data ?? new Uint8Array());
    if (sealed.length < IV_BYTES + TAG_BYTES)
      throw new Error(`cannot decrypt a payload sealed with key id '${id}': it is truncated`);
    const decipher = createDecipheriv(ALGORITHM, key, sealed.subarray(0, IV_BYTES));
    decipher.setAAD(utf8(id!));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new Error(
        `cannot decrypt a payload sealed with key id '${id}': the key does not match or the payload was altered`,
      );
    }
    return temporal.api.common.v1.Payload.decode(plain);
  }
}
