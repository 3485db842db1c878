/**
 * The worker process's own metrics on the Temporal runtime's Prometheus endpoint (beside the SDK's):
 * every attempt on the wire to the ramp service (ramp/http-client.ts tells `onAttempt`), and the
 * process's resident memory against the limit it runs under, for the "worker memory near its limit"
 * alert. Names, labels and help come from observability/metric-catalogue.ts.
 */
import { readFileSync } from 'node:fs';
import type { MetricMeter } from '@temporalio/common';
import type { RuntimeOptions } from '@temporalio/worker';
import { histogramBucketOverrides, METRICS } from '../observability/metric-catalogue';
import type { RampAttempt } from '../ramp/http-client';

/** The ramp client's `onAttempt`: counts each attempt by method, endpoint template and outcome, and times it. */
export function serviceAttemptMetrics(meter: MetricMeter): (attempt: RampAttempt) => void {
  const requests = meter.createCounter(METRICS.serviceRequests.name, '1', METRICS.serviceRequests.help);
  const duration = meter.createHistogram(
    METRICS.serviceRequestDuration.name,
    'float',
    's',
    METRICS.serviceRequestDuration.help,
  );
  return (attempt) => {
    requests.add(1, {
      method: attempt.method,
      endpoint: attempt.endpoint,
      outcome: attempt.outcome,
      error_type: attempt.errorType,
    });
    duration.record(attempt.seconds, { method: attempt.method, endpoint: attempt.endpoint });
  };
}

/**
 * The container's memory limit, if any: the cgroup's (v2 `memory.max`, v1 `memory.limit_in_bytes`)
 * when it is a real limit. The worker warns when it is below its budget (WORKER_MEMORY_MB).
 */
export function cgroupMemoryLimitBytes(
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): number | undefined {
  for (const path of ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes']) {
    try {
      const value = Number(readFile(path).trim());
      // v1 reports "no limit" as a huge number near 2^63.
      if (Number.isFinite(value) && value > 0 && value < 2 ** 60) return value;
    } catch {
      // Not there: try the next, or no limit.
    }
  }
  return undefined;
}

/** Sets the resident memory gauge every `intervalMs` (and the limit once); returns a stop function. */
export function reportProcessMemory(meter: MetricMeter, limitBytes: number, intervalMs = 10_000): () => void {
  const resident = meter.createGauge(METRICS.workerResidentMemory.name, 'int', 'By', METRICS.workerResidentMemory.help);
  meter.createGauge(METRICS.workerMemoryLimit.name, 'int', 'By', METRICS.workerMemoryLimit.help).set(limitBytes);
  const sample = () => resident.set(process.memoryUsage.rss());
  sample();
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * The Temporal runtime's telemetry serving the worker's metrics on `bindAddress` (the worker process
 * on 0.0.0.0, `rampflow dev` on loopback): durations in seconds (the SDK's latency histograms keep
 * their names; values and buckets are seconds), and rampflow's own histograms with buckets of their
 * own (observability/metric-catalogue.ts).
 */
export function prometheusTelemetry(bindAddress: string): NonNullable<RuntimeOptions['telemetryOptions']> {
  return {
    metrics: {
      prometheus: { bindAddress, useSecondsForDurations: true, histogramBucketOverrides: histogramBucketOverrides() },
    },
  };
}
