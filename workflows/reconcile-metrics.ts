/**
 * What a reconciliation run tells operators, on the worker's Prometheus endpoint (the Temporal
 * runtime's, beside `rampflow_service_outage`) and in one log line. A run that stopped short (its page
 * or repair limit cut a list) still repaired what it read, but left the rest to the next run and the
 * workflows' own polls; runs that keep stopping short, or no complete run for hours, mean lost
 * webhooks are not being found (an alert, README "Reconciliation").
 *
 * - `rampflow_reconcile_runs_total{outcome="complete"|"truncated"}`: runs finished, by outcome.
 * - `rampflow_reconcile_last_complete_run_timestamp_seconds`: when the last complete run finished
 *   (Unix seconds; absent until this worker has run one).
 *
 * Emitted through the workflow's metric meter, which the SDK mutes during replay, so a run counts
 * once however often its history is replayed. No label names a customer: the SDK adds only the
 * namespace, task queue and workflow type.
 */
import { log, metricMeter } from '@temporalio/workflow';
import { workflowNow } from './clock';
import type { ReconcileResult } from './reconcile-types';

export function reportReconcileRun(result: ReconcileResult): void {
  const outcome = result.truncated ? 'truncated' : 'complete';
  metricMeter.createCounter('rampflow_reconcile_runs_total', '', 'Reconciliation runs finished, by outcome: complete, or truncated by their page or repair limits').add(1, { outcome });
  if (result.truncated) {
    // One line per run that stopped short, with what it did; the message is the same every time, for an alert to match.
    log.warn('reconciliation run truncated: its page or repair limit stopped it before the end of a list; the rest waits for the next run', {
      pages: result.pages,
      examined: result.examined,
      repaired: result.repaired,
      missed: result.missed,
    });
    return;
  }
  metricMeter
    .createGauge('rampflow_reconcile_last_complete_run_timestamp_seconds', 'int', '', 'When the last reconciliation run that read every list to its end finished (Unix time, seconds)')
    .set(Math.floor(workflowNow() / 1000));
  if (result.repaired > 0) log.info('reconciliation repaired lagging workflows', { pages: result.pages, examined: result.examined, repaired: result.repaired, missed: result.missed });
}
