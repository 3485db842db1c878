/**
 * The contract of a stream's delivery workflow, `partner-events/<stream>` (workflows/partner-events/delivery.ts):
 * its ID, input, the signal that brings more events, the operator's `resend`, and its state.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PartnerEventStream } from '../../partner-events/catalogue';

export const partnerEventDeliveryWorkflowId = (stream: PartnerEventStream): string => `partner-events/${stream}`;

/**
 * The failure type of a partner event sequence conflict that retrying cannot heal: the stream's
 * sequences are held by other events (activities/partner-event-activities.ts). Non-retryable in the
 * outbox's retry policy; the outbox parks its stream on it (workflows/partner-events/outbox.ts).
 */
export const PARTNER_EVENT_SEQUENCE_CONFLICT = 'PartnerEventSequenceConflict';

/** Production default: deliveries to an endpoint are retried for three days before they park. */
export const DEFAULT_DELIVERY_RETRY_SECONDS = 3 * 24 * 60 * 60;

/**
 * Endpoints behind, by name, each with the last sequence it has: the publisher names every endpoint
 * it delivers to, so the workflow learns of an endpoint configured after it started.
 */
export type EndpointProgress = Record<string, number>;

export interface PartnerEventDeliveryInput {
  stream: PartnerEventStream;
  /** The stream's last sequence the publisher has recorded. */
  throughSequence: number;
  endpoints: EndpointProgress;
  /** How long an endpoint's deliveries are retried before they park (DEFAULT_DELIVERY_RETRY_SECONDS). */
  retrySeconds?: number;
  /** Parked endpoints a run carries to the next through continue-as-new: they stay parked. */
  parked?: Record<string, ParkedDelivery>;
}

/** The delivery workflow's signature (workflows/partner-events/delivery.ts), for those that start it without importing it. */
export type PartnerEventDeliveryWorkflow = (input: PartnerEventDeliveryInput) => Promise<void>;

export interface MorePartnerEvents {
  throughSequence: number;
  endpoints: EndpointProgress;
}
export const morePartnerEventsSignal = defineSignal<[MorePartnerEvents]>('morePartnerEvents');

export interface ParkedDelivery {
  /** The last attempt's outcome (a status, a timeout): never the event's content. */
  reason: string;
  since: string;
}

export interface EndpointDeliveryState {
  deliveredThrough: number;
  parked?: ParkedDelivery;
}

export interface PartnerEventDeliveryState {
  stream: PartnerEventStream;
  throughSequence: number;
  endpoints: Record<string, EndpointDeliveryState>;
}
export const partnerEventDeliveryStateQuery = defineQuery<PartnerEventDeliveryState>('partnerEventDeliveryState');

/** Resume parked deliveries (every parked endpoint, or the one named), each with a fresh retry period. */
export interface ResendRequest {
  endpoint?: string;
}
export const resendUpdate = defineUpdate<{ resumed: string[] }, [ResendRequest]>('resend');
