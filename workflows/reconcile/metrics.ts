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
 * namespace, task queue and workflow type (`namespace`, `taskQueue`, `workflowType`), and we `workflow_type`.
 */
import { log, metricMeter } from '@temporalio/workflow';
import { METRICS } from '../../observability/metric-catalogue';
import { workflowNow } from '../common/timings';
import type { ReconcileResult } from './types';
import { withWorkflowType } from '../common/showing';

export function reportReconcileRun(result: ReconcileResult): void {
  const outcome = result.truncated ? 'truncated' : 'complete';
  metricMeter
    .createCounter(METRICS.reconcileRuns.name, '', METRICS.reconcileRuns.help)
    .add(1, withWorkflowType({ outcome }));
  if (result.truncated) {
    // One line per run that stopped short, with what it did; the message is the same every time, for an alert to match.
    log.warn(
      'reconciliation run truncated: its page or repair limit stopped it before the end of a list; the rest waits for the next run',
      {
        pages: result.pages,
        examined: result.examined,
        repaired: result.repaired,
        missed: result.missed,
      },
    );
    return;
  }
  metricMeter
    .createGauge(METRICS.reconcileLastComplete.name, 'int', '', METRICS.reconcileLastComplete.help)
    .set(Math.floor(workflowNow() / 1000), withWorkflowType({}));
  if (result.repaired > 0)
    log.info('reconciliation repaired lagging workflows', {
      pages: result.pages,
      examined: result.examined,
      repaired: result.repaired,
      missed: result.missed,
    });
}
