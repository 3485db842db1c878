/**
 * What `rampflow status` reads from a worker's Prometheus endpoint (WORKER_METRICS_PORT, `/metrics`):
 * the service-health gauge, the service calls by outcome, and when the last complete reconciliation
 * finished. The text exposition format is parsed minimally (name, labels, value; comments skipped),
 * which is all the Temporal runtime's exporter writes.
 */
import { METRICS } from '../observability/metric-catalogue';

export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface WorkerMetrics {
  url: string;
  /** False when the endpoint could not be read; `error` says why. */
  ok: boolean;
  error?: string;
  /**
   * `rampflow_service_outage` by cause (1: every call to the service fails that way). Empty when the
   * worker serves no such series (a worker older than the gauge's zeroing at start).
   */
  outage: Record<string, number>;
  /** `rampflow_service_requests_total` summed by outcome (2xx, 4xx, 429, 5xx, network): since the worker started. */
  serviceRequests: Record<string, number>;
  /** `rampflow_reconcile_last_complete_run_timestamp_seconds` (the latest of its series), as ISO time; absent until this worker finished a complete run. */
  lastCompleteReconcile?: string;
}

const SAMPLE = /^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of a Prometheus text exposition (comments and blank lines skipped). */
export function parsePrometheusText(text: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (match[2] ?? '').matchAll(LABEL))
      labels[key!] = raw!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    const value = Number(match[3]);
    if (!Number.isNaN(value)) samples.push({ name: match[1]!, labels, value });
  }
  return samples;
}

/** The status's reading of one worker's metrics. */
export function summariseWorkerMetrics(url: string, samples: MetricSample[]): WorkerMetrics {
  const outage: Record<string, number> = {};
  const serviceRequests: Record<string, number> = {};
  let lastComplete: number | undefined;
  for (const { name, labels, value } of samples) {
    if (name === METRICS.serviceOutage.name)
      outage[labels.cause ?? ''] = Math.max(outage[labels.cause ?? ''] ?? 0, value);
    else if (name === METRICS.serviceRequests.name)
      serviceRequests[labels.outcome ?? ''] = (serviceRequests[labels.outcome ?? ''] ?? 0) + value;
    else if (name === METRICS.reconcileLastComplete.name) lastComplete = Math.max(lastComplete ?? 0, value);
  }
  return {
    url,
    ok: true,
    outage,
    serviceRequests,
    ...(lastComplete ? { lastCompleteReconcile: new Date(lastComplete * 1000).toISOString() } : {}),
  };
}

/** Reads one worker's endpoint within `timeoutMs`; a failure is reported in the result, never thrown. */
export async function readWorkerMetrics(url: string, timeoutMs = 3_000): Promise<WorkerMetrics> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) return { url, ok: false, error: `HTTP ${response.status}`, outage: {}, serviceRequests: {} };
    return summariseWorkerMetrics(url, parsePrometheusText(await response.text()));
  } catch (error) {
    const message =
      error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    return { url, ok: false, error: message, outage: {}, serviceRequests: {} };
  }
}
