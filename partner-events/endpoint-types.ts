/**
 * A partner endpoint as configured (PARTNER_EVENT_ENDPOINTS, parsed and checked in
 * partner-events/endpoints.ts) and what one delivery attempt to it came to.
 */
import type { PartnerEventType } from './catalogue';

export interface PartnerEndpoint {
  /** Stable name: what operators, metrics and parked deliveries call it. */
  name: string;
  /** `https`, or `http` to a loopback host only. */
  url: string;
  /** `whsec_...` secrets; every delivery is signed with each, so a partner can rotate without a gap. */
  secrets: string[];
  /** The event types it subscribes to; every type when absent. */
  events?: PartnerEventType[];
}

export type DeliveryAttempt =
  | { outcome: 'delivered'; status: number }
  /** 410 Gone: the partner removed the endpoint; it is disabled until an operator enables it. */
  | { outcome: 'gone'; status: 410 }
  /** Anything else: a non-2xx answer (redirects included, never followed), a timeout, a refused connection. */
  | { outcome: 'failed'; status?: number; reason: string };
