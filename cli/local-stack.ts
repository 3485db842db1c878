/**
 * What the operator commands find of a local stack (`npm start`) when this shell does not configure
 * it: the stack keeps its state in `.data/` of the checkout it runs from, the folder the other
 * `.data/` defaults (PARTNER_EVENTS_DIR, RAMPFLOW_ATTACHMENTS_DIR) name relative to the working
 * directory too. A variable set in this shell always wins; servers (worker, receiver, partner API,
 * codec server) never look here: a deployment configures them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where `npm start` keeps its payload key (dev/local-secrets.ts), relative to the working directory. */
export const LOCAL_PAYLOAD_KEYS_FILE = join('.data', 'payload-keys');

/**
 * The environment with RAMPFLOW_PAYLOAD_KEYS from the local stack's key file when this shell has
 * none; without either, one line naming the variable to set.
 */
export function withPayloadKeys(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (env.RAMPFLOW_PAYLOAD_KEYS) return env;
  if (existsSync(LOCAL_PAYLOAD_KEYS_FILE)) return { ...env, RAMPFLOW_PAYLOAD_KEYS: readFileSync(LOCAL_PAYLOAD_KEYS_FILE, 'utf8').trim() };
  throw new Error(
    `RAMPFLOW_PAYLOAD_KEYS is not set and there is no ${LOCAL_PAYLOAD_KEYS_FILE} here (where npm start keeps its key): set RAMPFLOW_PAYLOAD_KEYS to the keys the worker uses (docs/deploying/customer-data-and-keys.md)`,
  );
}
