/**
 * The receiver's Prometheus metrics, on a registry of its own (GET /metrics):
 * - rampflow_webhook_requests_total{outcome}: every request, by what became of it;
 * - rampflow_webhook_handoff_seconds{result}: how long Temporal took to accept (or refuse) the start,
 *   the part of the service's 30-second acknowledgement budget we spend;
 * - rampflow_webhook_payload_mismatches_total{event}: accepted deliveries whose payload did not match
 *   our schema of the event's resource (the payload is only a hint, so they are handed over anyway; a
 *   rising count says the service's shapes moved away from ours).
 */
import { Counter, Histogram, Registry } from 'prom-client';

export const OUTCOMES = [
  'accepted', // a new event, handed to Temporal (200)
  'duplicate', // already handed over before (200)
  'invalid', // malformed envelope or payload (400)
  'forbidden', // source IP not allowed (403)
  'not_found', // wrong or missing token, or no such route (404)
  'too_large', // body over the cap (413)
  'unsupported_media_type', // not JSON (415)
  'unavailable', // Temporal could not be reached (503): the service retries
  'error', // anything else (500); never expected
  'other', // health and metrics requests
] as const;
export type Outcome = (typeof OUTCOMES)[number];

export type HandoffResult = 'started' | 'duplicate' | 'routed-again' | 'unavailable';

export class WebhookMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'rampflow_webhook_requests_total',
    help: 'Webhook receiver requests by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly handoff = new Histogram({
    name: 'rampflow_webhook_handoff_seconds',
    help: 'Time for Temporal to accept or refuse the start of a ramp-event workflow',
    labelNames: ['result'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20],
    registers: [this.registry],
  });

  private readonly payloadMismatches = new Counter({
    name: 'rampflow_webhook_payload_mismatches_total',
    help: 'Deliveries handed over although their payload did not match our schema of the event',
    labelNames: ['event'] as const,
    registers: [this.registry],
  });

  constructor() {
    // Every outcome appears from the start, at zero, so dashboards and alerts need no special case.
    for (const outcome of OUTCOMES) this.requests.inc({ outcome }, 0);
  }

  countRequest(outcome: Outcome): void {
    this.requests.inc({ outcome });
  }

  countPayloadMismatch(event: string): void {
    this.payloadMismatches.inc({ event });
  }

  observeHandoff(result: HandoffResult, seconds: number): void {
    this.handoff.observe({ result }, seconds);
  }
}
