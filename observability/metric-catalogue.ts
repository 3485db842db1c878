/**
 * Every metric rampflow emits, in one list: name, type, labels, help, and which process serves it.
 * The README's table is generated from it (`metricsTableMarkdown`), and test/observability/
 * metric-catalogue.test.ts fails when code creates a metric this list does not have, or this list
 * names one no code creates. The dashboards and alert rules may name only these and the Temporal
 * SDK's own metrics (`SDK_METRICS`).
 *
 * Conventions (Prometheus's): base units (seconds, bytes), `_total` on counters (the Temporal
 * runtime's exporter adds no suffix, so the names carry it), `_seconds` on durations. No label ever
 * holds a customer id, an externalId, a deposit or payment id, or free text: only fixed words, the
 * service's endpoint templates, currencies and kinds. Metrics emitted through the workflow metric
 * meter carry `workflow_type` (ours) and the SDK's `namespace`, `taskQueue` and `workflowType`, and
 * are muted while a history replays, so each count is one real event.
 *
 * Pure data: workflow code may import it.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram';
/** Where the metric is served: the worker's endpoint (WORKER_METRICS_PORT) or the receiver's GET /metrics. */
export type MetricSource = 'worker' | 'receiver';

export interface MetricDefinition {
  name: string;
  type: MetricType;
  /** Labels rampflow sets (the SDK's own are listed in SDK_WORKFLOW_LABELS). */
  labels: readonly string[];
  help: string;
  source: MetricSource;
  /** Emitted through the workflow metric meter: also labelled with SDK_WORKFLOW_LABELS. */
  fromWorkflow?: boolean;
  /** A histogram's bucket boundaries (the worker passes them to the runtime as overrides). */
  buckets?: readonly number[];
}

/**
 * Labels the SDK adds to every metric a workflow emits (camel case, unlike its own `temporal_*`
 * metrics' `task_queue` and `workflow_type`: so rampflow adds `workflow_type` itself, listed in each
 * definition's labels).
 */
export const SDK_WORKFLOW_LABELS = ['namespace', 'taskQueue', 'workflowType'] as const;

const define = <K extends string>(metrics: Record<K, MetricDefinition>): Record<K, MetricDefinition> => metrics;

export const METRICS = define({
  // ---- workflows: stages -------------------------------------------------------------------------
  stageTransitions: {
    name: 'rampflow_stage_transitions_total',
    type: 'counter',
    labels: ['workflow_type', 'stage'],
    help: 'Workflows entering a stage (journeys, deposits, payouts), by the stage entered',
    source: 'worker',
    fromWorkflow: true,
  },
  stageDuration: {
    name: 'rampflow_stage_duration_seconds',
    type: 'histogram',
    labels: ['workflow_type', 'stage'],
    help: 'Time a workflow spent in a stage, observed when it leaves the stage',
    source: 'worker',
    fromWorkflow: true,
    // From a step's seconds to KYC's days (the SLA rules compare against these boundaries).
    buckets: [
      1,
      10,
      60,
      300,
      900,
      3_600,
      4 * 3_600,
      12 * 3_600,
      86_400,
      2 * 86_400,
      3 * 86_400,
      7 * 86_400,
      14 * 86_400,
      30 * 86_400,
    ],
  },
  stageOldestWaiter: {
    name: 'rampflow_stage_oldest_waiter_seconds',
    type: 'gauge',
    labels: ['workflow_type', 'stage'],
    help: 'How long the running workflow that entered a stage first has been in it (RampStageSince), from a visibility scan every STAGE_AGE_SCAN_SECONDS; 0 when none waits there',
    source: 'receiver',
  },
  parked: {
    name: 'rampflow_parked_total',
    type: 'counter',
    labels: ['workflow_type', 'stage', 'reason'],
    help: 'Workflows parked in NEEDS_ATTENTION, by the stage parked and the failure type (Deadline, Failed, InvalidParameters, ...)',
    source: 'worker',
    fromWorkflow: true,
  },
  resumed: {
    name: 'rampflow_resumed_total',
    type: 'counter',
    labels: ['workflow_type', 'stage', 'reason', 'decision'],
    help: 'Parked workflows that left NEEDS_ATTENTION, by stage, failure type and how (retry, cancel, ended, resolved)',
    source: 'worker',
    fromWorkflow: true,
  },
  // ---- workflows: money --------------------------------------------------------------------------
  depositsCompleted: {
    name: 'rampflow_deposits_completed_total',
    type: 'counter',
    labels: ['workflow_type', 'kind', 'currency'],
    help: 'Deposits that completed (traded, and paid out for an offramp), by kind and deposit currency',
    source: 'worker',
    fromWorkflow: true,
  },
  depositsReversed: {
    name: 'rampflow_deposits_reversed_total',
    type: 'counter',
    labels: ['workflow_type', 'kind', 'currency', 'after'],
    help: 'Deposits the service refunded after confirming them; after: completed or in-flight',
    source: 'worker',
    fromWorkflow: true,
  },
  depositAmount: {
    // A histogram, not a counter: the runtime's counters are integers, its histograms' sums floats.
    // `_sum` is the money moved per currency, `_count` the deposits, the buckets their sizes.
    name: 'rampflow_deposit_amount',
    type: 'histogram',
    labels: ['workflow_type', 'kind', 'currency', 'outcome'],
    help: 'Deposit amounts in the deposit currency (a float sum: for dashboards, not accounting), by outcome: completed or reversed',
    source: 'worker',
    fromWorkflow: true,
    buckets: [10, 100, 1_000, 10_000, 100_000, 1_000_000],
  },
  payoutsEnded: {
    name: 'rampflow_payouts_total',
    type: 'counter',
    labels: ['workflow_type', 'outcome'],
    help: 'Payouts that ended, by outcome: settled, failed (the service failed the payment) or cancelled',
    source: 'worker',
    fromWorkflow: true,
  },
  payoutAmount: {
    // As rampflow_deposit_amount: a float histogram, `_sum` the money paid out per currency.
    name: 'rampflow_payout_amount',
    type: 'histogram',
    labels: ['workflow_type', 'currency'],
    help: "Settled payouts' amounts in the currency deducted from the partner balance (a float sum: for dashboards, not accounting), by that currency",
    source: 'worker',
    fromWorkflow: true,
    buckets: [10, 100, 1_000, 10_000, 100_000, 1_000_000],
  },
  // ---- workflows: trust rule and reconciliation --------------------------------------------------
  deliveriesDismissed: {
    name: 'rampflow_deliveries_dismissed_total',
    type: 'counter',
    labels: ['workflow_type', 'reason'],
    help: 'Workflows a delivery started about a record the service does not have, ended at once',
    source: 'worker',
    fromWorkflow: true,
  },
  hintsIgnored: {
    name: 'rampflow_hints_ignored_total',
    type: 'counter',
    labels: ['workflow_type', 'reason'],
    help: 'Deliveries whose claim the service did not back',
    source: 'worker',
    fromWorkflow: true,
  },
  reconcileRuns: {
    name: 'rampflow_reconcile_runs_total',
    type: 'counter',
    labels: ['workflow_type', 'outcome'],
    help: 'Reconciliation runs finished, by outcome: complete, or truncated by their page or repair limits',
    source: 'worker',
    fromWorkflow: true,
  },
  reconcileLastComplete: {
    name: 'rampflow_reconcile_last_complete_run_timestamp_seconds',
    type: 'gauge',
    labels: ['workflow_type'],
    help: 'When the last reconciliation run that read every list to its end finished (Unix time, seconds)',
    source: 'worker',
    fromWorkflow: true,
  },
  // ---- activities and the worker process ---------------------------------------------------------
  serviceRequests: {
    name: 'rampflow_service_requests_total',
    type: 'counter',
    labels: ['method', 'endpoint', 'outcome', 'error_type'],
    help: "Attempts on the wire to the ramp service, by endpoint template and outcome (2xx, 4xx, 429, 5xx, network); error_type: the service's refusal",
    source: 'worker',
  },
  serviceRequestDuration: {
    name: 'rampflow_service_request_duration_seconds',
    type: 'histogram',
    labels: ['method', 'endpoint'],
    help: 'Duration of one attempt on the wire to the ramp service, answered or not',
    source: 'worker',
    buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  },
  serviceOutage: {
    name: 'rampflow_service_outage',
    type: 'gauge',
    labels: ['cause'],
    help: 'Calls to the ramp service fail the same way everywhere (1), by cause',
    source: 'worker',
  },
  serviceCallRate: {
    name: 'rampflow_service_call_rate',
    type: 'gauge',
    labels: ['scope'],
    help: "Calls a second to the ramp service: the partner-wide rate the workers share, lowered while the service answers 429 (scope=partner), and this worker's share of it (scope=worker)",
    source: 'worker',
  },
  partnerEventDeliveries: {
    name: 'rampflow_partner_event_deliveries_total',
    type: 'counter',
    labels: ['endpoint', 'outcome'],
    help: 'Delivery attempts of partner events, by endpoint and outcome (delivered, failed, gone)',
    source: 'worker',
  },
  partnerEventDeliveriesParked: {
    name: 'rampflow_partner_event_deliveries_parked_total',
    type: 'counter',
    labels: ['workflow_type', 'endpoint'],
    help: "Partner event streams whose deliveries to an endpoint parked (NEEDS_ATTENTION) after the retry period, by endpoint (the partner's configured name)",
    source: 'worker',
    fromWorkflow: true,
  },
  partnerEventsStopped: {
    name: 'rampflow_partner_events_stopped_total',
    type: 'counter',
    labels: ['workflow_type', 'reason'],
    help: "A workflow's partner events stopped short of the partner: sequence-conflict (the store refused the stream's numbers for good; unrecorded events dropped), handoff-failed (recorded, but not handed to the stream's delivery workflow; in GET /events only)",
    source: 'worker',
    fromWorkflow: true,
  },
  workerResidentMemory: {
    name: 'process_resident_memory_bytes',
    type: 'gauge',
    labels: [],
    help: 'Resident memory of the worker process (bytes)',
    source: 'worker',
  },
  workerMemoryLimit: {
    name: 'rampflow_worker_memory_limit_bytes',
    type: 'gauge',
    labels: [],
    help: 'The memory budget the worker keeps to (WORKER_MEMORY_MB), in bytes',
    source: 'worker',
  },
  // ---- the webhook receiver ----------------------------------------------------------------------
  webhookRequests: {
    name: 'rampflow_webhook_requests_total',
    type: 'counter',
    labels: ['outcome'],
    help: 'Webhook receiver requests by outcome',
    source: 'receiver',
  },
  webhookHandoff: {
    name: 'rampflow_webhook_handoff_seconds',
    type: 'histogram',
    labels: ['result'],
    help: "Time for Temporal to accept or refuse a webhook's signal or its ramp-event workflow's start",
    source: 'receiver',
  },
  webhookPayloadMismatches: {
    name: 'rampflow_webhook_payload_mismatches_total',
    type: 'counter',
    labels: ['event'],
    help: 'Deliveries handed over although their payload did not match our schema of the event',
    source: 'receiver',
  },
  webhookWorkflowRoutes: {
    name: 'rampflow_webhook_workflow_routes_total',
    type: 'counter',
    labels: ['reason'],
    help: 'Deliveries handed to a ramp-event workflow instead of routed directly, by reason',
    source: 'receiver',
  },
  webhookUnknownEvents: {
    name: 'rampflow_webhook_unknown_events_total',
    type: 'counter',
    labels: [],
    help: 'Well-formed deliveries of an event name rampflow does not know, dropped with 200',
    source: 'receiver',
  },
  webhookOverBudget: {
    name: 'rampflow_webhook_over_budget_total',
    type: 'counter',
    labels: ['budget'],
    help: "Deliveries answered 429 because they were over a rate of the receiver's budget (source, target, starts)",
    source: 'receiver',
  },
});

/** The runtime's `histogramBucketOverrides` for the worker's histograms. */
export function histogramBucketOverrides(): Record<string, number[]> {
  const overrides: Record<string, number[]> = {};
  for (const metric of Object.values(METRICS))
    if (metric.source === 'worker' && metric.buckets) overrides[metric.name] = [...metric.buckets];
  return overrides;
}

/**
 * The Temporal SDK's own worker metrics the dashboard and the alerts use (the runtime prefixes them
 * `temporal_`; with `useSecondsForDurations` their latencies are in seconds, names unchanged).
 */
export const SDK_METRICS = {
  temporal_workflow_task_execution_failed: 'counter',
  temporal_workflow_task_schedule_to_start_latency: 'histogram',
  temporal_workflow_task_execution_latency: 'histogram',
  temporal_activity_schedule_to_start_latency: 'histogram',
  temporal_activity_execution_failed: 'counter',
  temporal_activity_execution_latency: 'histogram',
  temporal_sticky_cache_hit: 'counter',
  temporal_sticky_cache_miss: 'counter',
  temporal_sticky_cache_size: 'gauge',
  temporal_worker_task_slots_available: 'gauge',
  temporal_workflow_completed: 'counter',
  temporal_workflow_failed: 'counter',
} as const satisfies Record<string, MetricType>;

/** Names a PromQL expression may use: the catalogue's (histograms with their series suffixes), the SDK's, Prometheus's `up`. */
export function knownSeriesNames(): Set<string> {
  const names = new Set<string>(['up']);
  const add = (name: string, type: MetricType) => {
    names.add(name);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
  };
  for (const metric of Object.values(METRICS)) add(metric.name, metric.type);
  for (const [name, type] of Object.entries(SDK_METRICS)) add(name, type);
  return names;
}

export const METRICS_TABLE_START = '<!-- metrics-table:start (generated from observability/metric-catalogue.ts) -->';
export const METRICS_TABLE_END = '<!-- metrics-table:end -->';

/** The metrics table of docs/reference/metrics.md (`npm run docs:generate`). */
export function metricsTableMarkdown(): string {
  const rows = Object.values(METRICS).map((metric) => {
    const labels = [...metric.labels, ...(metric.fromWorkflow ? SDK_WORKFLOW_LABELS.map((label) => `${label}*`) : [])];
    return `| \`${metric.name}\` | ${metric.type} | ${metric.source} | ${labels.length ? labels.map((label) => `\`${label}\``).join(', ') : '—'} | ${metric.help.replace(/\|/g, '\\|')} |`;
  });
  return [
    '| metric | type | served by | labels | what it counts |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
    '`*` added by the Temporal SDK to metrics a workflow emits (its `namespace`, `taskQueue`, `workflowType`).',
  ].join('\n');
}
