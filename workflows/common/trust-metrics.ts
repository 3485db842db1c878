/**
 * What the trust rule turned away, counted for operators (workflows/common/trust.ts), through the workflow
 * metric meter: it emits nothing while a history replays, so each count is one real event however
 * often the workflow is replayed. Labels are the workflow type and a fixed reason, never an id.
 *
 * - `rampflow_deliveries_dismissed_total`: a workflow started by a delivery ended because the service does
 *   not have the record the delivery named, or (ramp-event workflows) never confirmed what it claimed
 *   (a forged or made-up delivery). A rise is worth an alert: someone may hold the webhook token.
 * - `rampflow_hints_ignored_total`: a delivery's claim the service's record did not back (a record it does
 *   not have, or one it links to another deposit or trade).
 */
import { metricMeter } from '@temporalio/workflow';
import { METRICS } from '../../observability/metric-catalogue';

/**
 * record-not-found: the service has no such record; claim-not-confirmed: the service's record never
 * showed what the delivery claimed; not-read-in-time: the record could not be read within the wait
 * (a ramp-event workflow's read waits at the lowest priority).
 */
export type DismissReason = 'record-not-found' | 'claim-not-confirmed' | 'not-read-in-time';

export function countDismissed(workflowType: string, reason: DismissReason): void {
  metricMeter
    .createCounter(METRICS.deliveriesDismissed.name, '1', METRICS.deliveriesDismissed.help)
    .add(1, { workflow_type: workflowType, reason });
}

export function countIgnoredHint(workflowType: string, reason: string): void {
  metricMeter
    .createCounter(METRICS.hintsIgnored.name, '1', METRICS.hintsIgnored.help)
    .add(1, { workflow_type: workflowType, reason });
}
