/** The payload codec, its codec server, and the keys they use (README, "Customer data in Temporal"). */
export { EncryptionCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA } from './encryption-codec';
export { dataConverterFromEnv, FAILURE_CONVERTER_PATH, payloadKeysFromEnv, rampflowDataConverter } from './data-converter';
export { generatePayloadKey } from './keys';
export { buildCodecServer, type CodecServerOptions } from './codec-server';
