/**
 * The data converter of every rampflow connection to Temporal (worker, receiver, client library, CLI,
 * benchmarks, tests): the default payload conversion, then the encryption codec. Failures put their
 * message and stack trace into the encoded attributes, so the codec seals those too.
 */
import { join } from 'node:path';
import type { DataConverter } from '@temporalio/common';
import { parseEnv, PayloadEnvSchema, type PayloadKey } from '../config/env';
import { EncryptionCodec } from './encryption-codec';

/** Workflow bundles are built with it too (workers/worker.ts, WORKFLOW_BUNDLE_PATHS). */
export const FAILURE_CONVERTER_PATH = join(__dirname, 'failure-converter.js');

export function rampflowDataConverter(keys: readonly PayloadKey[]): DataConverter {
  return {
    payloadCodecs: [new EncryptionCodec(keys)],
    failureConverterPath: FAILURE_CONVERTER_PATH,
  };
}

/** The keys of RAMPFLOW_PAYLOAD_KEYS; a missing or malformed variable fails with one clear line. */
export function payloadKeysFromEnv(env: NodeJS.ProcessEnv = process.env): PayloadKey[] {
  return parseEnv(PayloadEnvSchema, env).RAMPFLOW_PAYLOAD_KEYS;
}

export function dataConverterFromEnv(env: NodeJS.ProcessEnv = process.env): DataConverter {
  return rampflowDataConverter(payloadKeysFromEnv(env));
}
