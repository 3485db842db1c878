/**
 * What the operator commands find of a local stack (`npm start`) when this shell does not configure
 * it: the stack keeps its state in `.data/` of the checkout it runs from, the folder the other
 * `.data/` defaults (PARTNER_EVENTS_DIR, RAMPFLOW_ATTACHMENTS_DIR) name relative to the working
 * directory too. A variable set in this shell always wins; servers (worker, receiver, partner API,
 * codec server) never look here: a deployment configures them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PARTNER_ENDPOINTS_FILE, PAYLOAD_KEYS_FILE } from '../dev/local-secrets';

/** Where `npm start` keeps its payload key (dev/local-secrets.ts), relative to the working directory. */
export const LOCAL_PAYLOAD_KEYS_FILE = join('.data', PAYLOAD_KEYS_FILE);
/** The partner endpoints the local stack's worker delivers to, as it last started (dev/stack.ts). */
export const LOCAL_PARTNER_ENDPOINTS_FILE = join('.data', PARTNER_ENDPOINTS_FILE);

/**
 * The environment with RAMPFLOW_PAYLOAD_KEYS from the local stack's key file when this shell has
 * none; without either, one line naming the variable to set.
 */
export function withPayloadKeys(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (env.RAMPFLOW_PAYLOAD_KEYS) return env;
  if (existsSync(LOCAL_PAYLOAD_KEYS_FILE))
    return { ...env, RAMPFLOW_PAYLOAD_KEYS: readFileSync(LOCAL_PAYLOAD_KEYS_FILE, 'utf8').trim() };
  throw new Error(
    `RAMPFLOW_PAYLOAD_KEYS is not set and there is no ${LOCAL_PAYLOAD_KEYS_FILE} here (where npm start keeps its key): set RAMPFLOW_PAYLOAD_KEYS to the keys the worker uses (docs/deploying/customer-data-and-keys.md)`,
  );
}

/** Where `partner-events endpoints` reads the endpoints from, and how it says so. */
export interface EndpointsSource {
  env: NodeJS.ProcessEnv;
  /** One line naming the configuration read, printed above the endpoints. */
  says: string;
}

/**
 * The endpoints this shell configures when it sets either variable; otherwise the local stack's
 * worker's, when there is one here; otherwise this shell's (none), saying that a worker elsewhere
 * reads its own environment, which this command cannot see.
 */
export function partnerEndpointsSource(env: NodeJS.ProcessEnv = process.env): EndpointsSource {
  if (env.PARTNER_EVENT_ENDPOINTS || env.PARTNER_EVENT_ENDPOINTS_FILE) {
    return {
      env,
      says: "endpoints as this shell's PARTNER_EVENT_ENDPOINTS / PARTNER_EVENT_ENDPOINTS_FILE configure them (a worker reads its own environment: check it matches)",
    };
  }
  if (existsSync(LOCAL_PARTNER_ENDPOINTS_FILE)) {
    // Loopback is what the local stack delivers to (its own endpoint), with the opt-in it sets for its worker.
    return {
      env: {
        ...env,
        PARTNER_EVENT_ENDPOINTS_FILE: LOCAL_PARTNER_ENDPOINTS_FILE,
        PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS: 'true',
      },
      says: `endpoints of the local stack's worker (npm start), as it last started: ${LOCAL_PARTNER_ENDPOINTS_FILE}`,
    };
  }
  return {
    env,
    says: 'this shell sets no PARTNER_EVENT_ENDPOINTS or PARTNER_EVENT_ENDPOINTS_FILE and there is no local stack here: a worker started elsewhere reads its own environment, which this command cannot see',
  };
}
