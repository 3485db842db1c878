/**
 * The receiver's Prometheus metrics, on a registry of its own (GET /metrics):
 * - rampflow_webhook_requests_total{outcome}: every request, by what became of it;
 * - rampflow_webhook_handoff_seconds{result}: how long Temporal took to accept (or refuse) the signal
 *   or the start, the part of the service's 30-second acknowledgement budget we spend;
 * - rampflow_webhook_workflow_routes_total{reason}: deliveries handed to a ramp-event workflow rather
 *   than routed directly, and why (webhooks/direct-route.ts); a rising `unknown-customer` says the
 *   receivers rarely see a customer's own events (several replicas, or customers older than them);
 * - rampflow_webhook_payload_mismatches_total{event}: accepted deliveries whose payload did not match
 *   our schema of the event's resource (the payload is only a hint, so they are handed over anyway; a
 *   rising count says the service's shapes moved away from ours);
 * - rampflow_webhook_unknown_events_total: well-formed deliveries of an event name rampflow does not
 *   know, dropped with 200 (no label: the name is the sender's to choose);
 * - rampflow_webhook_over_budget_total{budget}: deliveries answered 429, by the rate they were over
 *   (`source`, `target`, `starts`, `total-starts`; webhooks/receiver-budget.ts).
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { METRICS } from '../observability/metric-catalogue';
import { WORKFLOW_ROUTE_REASONS, type WorkflowRouteReason } from './direct-route';

export const OUTCOMES = [
  'accepted', // a new event, signalled to its target or handed to a ramp-event workflow (200)
  'duplicate', // already handed over before, or a copy of a hint just sent (200)
  'ignored', // an event name rampflow does not know, dropped (200)
  'invalid', // malformed envelope or payload (400)
  'forbidden', // source IP not allowed (403)
  'not_found', // wrong or missing token, or no such route (404)
  'too_large', // body over the cap (413)
  'over_budget', // over a rate of the receiver's budget (429 with Retry-After): the service retries
  'unsupported_media_type', // not JSON (415)
  'unavailable', // Temporal could not be reached (503): the service retries
  'error', // anything else (500); never expected
  'other', // health and metrics requests
] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * started / duplicate: the ramp-event workflow's start; signalled: routed directly (a signal or a
 * deposit's signal-with-start); target-ended: routed directly to a deposit that had finished;
 * coalesced: the same claim to the same target was in flight or just sent; dropped: an unknown event.
 */
export type HandoffResult =
  'started' | 'duplicate' | 'signalled' | 'target-ended' | 'coalesced' | 'dropped' | 'unavailable';

export const BUDGETS = ['source', 'target', 'starts', 'total-starts'] as const;

export class WebhookMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: METRICS.webhookRequests.name,
    help: METRICS.webhookRequests.help,
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly handoff = new Histogram({
    name: METRICS.webhookHandoff.name,
    help: METRICS.webhookHandoff.help,
    labelNames: ['result'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20],
    registers: [this.registry],
  });

  private readonly payloadMismatches = new Counter({
    name: METRICS.webhookPayloadMismatches.name,
    help: METRICS.webhookPayloadMismatches.help,
    labelNames: ['event'] as const,
    registers: [this.registry],
  });

  private readonly workflowRoutes = new Counter({
    name: METRICS.webhookWorkflowRoutes.name,
    help: METRICS.webhookWorkflowRoutes.help,
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  private readonly unknownEvents = new Counter({
    name: METRICS.webhookUnknownEvents.name,
    help: METRICS.webhookUnknownEvents.help,
    registers: [this.registry],
  });

  private readonly overBudget = new Counter({
    name: METRICS.webhookOverBudget.name,
    help: METRICS.webhookOverBudget.help,
    labelNames: ['budget'] as const,
    registers: [this.registry],
  });

  constructor() {
    // Every outcome appears from the start, at zero, so dashboards and alerts need no special case.
    for (const outcome of OUTCOMES) this.requests.inc({ outcome }, 0);
    for (const reason of WORKFLOW_ROUTE_REASONS) this.workflowRoutes.inc({ reason }, 0);
    for (const budget of BUDGETS) this.overBudget.inc({ budget }, 0);
  }

  countUnknownEvent(): void {
    this.unknownEvents.inc();
  }

  countOverBudget(budget: (typeof BUDGETS)[number]): void {
    this.overBudget.inc({ budget });
  }

  countWorkflowRoute(reason: WorkflowRouteReason): void {
    this.workflowRoutes.inc({ reason });
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
