/** Making payload keys: `npm start` and the tests generate one; operators use openssl (README). */
import { randomBytes } from 'node:crypto';

/** A fresh key in the RAMPFLOW_PAYLOAD_KEYS format, `<keyId>:<base64 of 32 bytes>`. */
export function generatePayloadKey(keyId: string): string {
  return `${keyId}:${randomBytes(32).toString('base64')}`;
}
