/**
 * The worker's partner events, from the environment: the store it writes (PARTNER_EVENTS_*), the
 * endpoints it delivers to (PARTNER_EVENT_ENDPOINTS[_FILE]) with one connection pool for them all,
 * and the delivery timings. Events are always recorded (the pull API reads them); with no endpoint
 * configured nothing is pushed.
 */
import type { PartnerEventWiring } from '../activities/partner-event-activities';
import type { PartnerEventsEnv, PayloadKey } from '../config/env';
import { partnerEndpointsFromEnv, type PartnerEventEndpointsEnvSchema } from '../partner-events/endpoints-env';
import { createDeliveryAgent, deliverEvent } from '../partner-events/deliver';
import { openPartnerEventStore } from '../partner-events/open-store';
import type { z } from 'zod';

export interface WorkerPartnerEvents {
  wiring: PartnerEventWiring;
  close(): Promise<void>;
}

export async function partnerEventsFromEnv(
  config: PartnerEventsEnv & z.output<typeof PartnerEventEndpointsEnvSchema>,
  payloadKeys: readonly PayloadKey[],
): Promise<WorkerPartnerEvents> {
  const store = await openPartnerEventStore(config, payloadKeys, { role: 'writer' });
  const agent = createDeliveryAgent({ allowPrivateAddresses: config.PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS });
  const timeoutMs = config.PARTNER_EVENT_TIMEOUT_SECONDS * 1000;
  return {
    wiring: {
      store,
      endpoints: partnerEndpointsFromEnv(config),
      deliver: (endpoint, event, signal) =>
        deliverEvent(endpoint, event, { timeoutMs, dispatcher: agent, ...(signal ? { signal } : {}) }),
      retrySeconds: config.PARTNER_EVENT_RETRY_SECONDS,
    },
    async close() {
      await agent.close();
      await store.close();
    },
  };
}
