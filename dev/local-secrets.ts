/**
 * The payload key, codec token and partner-event signing secret of `rampflow dev`. The dev server
 * keeps history in a database file across restarts, so the key that encrypted it is kept beside it
 * (created once, owner-readable only); RAMPFLOW_PAYLOAD_KEYS, when set, wins. Other shells read the
 * same files to reach the same stack (docs/deploying/customer-data-and-keys.md). The partner-event secret
 * is kept the same way, so an endpoint a developer configured with it keeps verifying after a restart.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { generatePayloadKey } from '../codec';
import { generateEndpointSecret } from '../partner-events/local-endpoint';

/** The files of the stack's data folder (the --db-file's) that other shells read (cli/local-stack.ts). */
export const PAYLOAD_KEYS_FILE = 'payload-keys';
/** The partner endpoints the stack's worker delivers to, as it last started (dev/stack.ts writes it). */
export const PARTNER_ENDPOINTS_FILE = 'partner-event-endpoints.json';

export interface LocalSecrets {
  /** RAMPFLOW_PAYLOAD_KEYS's text. */
  payloadKeys: string;
  payloadKeysFile: string | undefined;
  codecToken: string;
  codecTokenFile: string;
  /** The `whsec_` secret the worker signs partner events with for the dev stack's local endpoint. */
  partnerEventSecret: string;
  partnerEventSecretFile: string;
}

function readOrCreate(path: string, create: () => string): string {
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(dirname(path), { recursive: true });
  const value = create();
  writeFileSync(path, `${value}\n`, { mode: 0o600 });
  return value;
}

export function localSecrets(dbFile: string, env: NodeJS.ProcessEnv = process.env): LocalSecrets {
  const folder = dirname(dbFile);
  const payloadKeysFile = env.RAMPFLOW_PAYLOAD_KEYS ? undefined : join(folder, PAYLOAD_KEYS_FILE);
  const codecTokenFile = join(folder, 'codec-token');
  const partnerEventSecretFile = join(folder, 'partner-event-secret');
  return {
    payloadKeys: env.RAMPFLOW_PAYLOAD_KEYS || readOrCreate(payloadKeysFile!, () => generatePayloadKey('dev')),
    payloadKeysFile,
    codecToken: readOrCreate(codecTokenFile, () => randomBytes(24).toString('hex')),
    codecTokenFile,
    partnerEventSecret: readOrCreate(partnerEventSecretFile, generateEndpointSecret),
    partnerEventSecretFile,
  };
}
