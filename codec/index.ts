/**
 * The payload codec and its keys (docs/deploying/customer-data-and-keys.md). The codec server (codec-server.ts)
 * is imported on its own, so a client library user does not load an HTTP server.
 */
export { EncryptionCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA } from './encryption-codec';
export { dataConverterFromEnv, payloadKeysFromEnv, rampflowDataConverter } from './data-converter';
export { generatePayloadKey } from './keys';
