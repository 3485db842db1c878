/**
 * Partner events for tests: a worker's wiring (the embedded file store in a folder of the test's
 * own, one endpoint, the real signed delivery over loopback) and the partner's endpoint itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PartnerEventWiring } from '../../activities/partner-event-activities';
import { createDeliveryAgent, deliverEvent } from '../../partner-events/deliver';
import type { PartnerEndpoint } from '../../partner-events/endpoint-types';
import { openFilePartnerEventStore } from '../../partner-events/file-store';
import type { PartnerEventStore } from '../../partner-events/store';
import { startTestPartnerEndpoint, type TestPartnerEndpoint } from './partner-endpoint';
import { testPayloadKeys } from './temporal';

export interface PartnerEventsUnderTest {
  endpoint: TestPartnerEndpoint;
  store: PartnerEventStore;
  wiring: PartnerEventWiring;
  close(): Promise<void>;
}

export async function startPartnerEvents(
  options: { retrySeconds?: number; timeoutMs?: number; endpointName?: string } = {},
): Promise<PartnerEventsUnderTest> {
  const dir = mkdtempSync(join(tmpdir(), 'rampflow-partner-events-'));
  const endpoint = await startTestPartnerEndpoint();
  const store = await openFilePartnerEventStore({ dir, payloadKeys: testPayloadKeys(), role: 'writer' });
  // Its endpoint is on loopback: the opt-in PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS gives.
  const agent = createDeliveryAgent({ allowPrivateAddresses: true });
  const configured: PartnerEndpoint = {
    name: options.endpointName ?? 'partner',
    url: endpoint.url,
    secrets: [endpoint.secret],
  };
  // The endpoint's URL is read at each attempt: a test that takes the endpoint down and up again keeps its port.
  const wiring: PartnerEventWiring = {
    store,
    endpoints: [configured],
    deliver: (target, event, signal) =>
      deliverEvent(target, event, {
        timeoutMs: options.timeoutMs ?? 2_000,
        dispatcher: agent,
        ...(signal ? { signal } : {}),
      }),
    ...(options.retrySeconds !== undefined ? { retrySeconds: options.retrySeconds } : {}),
  };
  return {
    endpoint,
    store,
    wiring,
    async close() {
      await endpoint.close();
      await agent.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
