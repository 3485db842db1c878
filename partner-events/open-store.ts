/**
 * Opens the partner event store the environment names (config/env.ts, PartnerEventsEnvSchema):
 * PostgreSQL when PARTNER_EVENTS_DATABASE_URL is set, else the embedded file log in
 * PARTNER_EVENTS_DIR. The worker opens it as the writer; the partner API as a reader.
 */
import type { PartnerEventsEnv, PayloadKey } from '../config/env';
import { openFilePartnerEventStore } from './file-store';
import { openPostgresPartnerEventStore } from './postgres-store';
import type { PartnerEventStore } from './store';

export interface OpenPartnerEventStoreOptions {
  /** `writer`: appends and changes endpoints (the worker); `reader`: reads only (the partner API). */
  role: 'writer' | 'reader';
}

export function openPartnerEventStore(
  env: PartnerEventsEnv,
  payloadKeys: readonly PayloadKey[],
  options: OpenPartnerEventStoreOptions,
): Promise<PartnerEventStore> {
  if (env.PARTNER_EVENTS_DATABASE_URL !== undefined) {
    return openPostgresPartnerEventStore({
      connectionString: env.PARTNER_EVENTS_DATABASE_URL,
      payloadKeys,
      role: options.role,
      poolSize: env.PARTNER_EVENTS_DATABASE_POOL_SIZE,
    });
  }
  return openFilePartnerEventStore({ dir: env.PARTNER_EVENTS_DIR, payloadKeys, role: options.role });
}
