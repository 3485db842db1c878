/**
 * What deposits do with money, counted for operators through the workflow metric meter (it emits
 * nothing while a history replays). Labels are the deposit's kind, its currency and a fixed word,
 * never an id or an amount.
 *
 * - `rampflow_deposits_reversed_total`: the service refunded a deposit after confirming it; `after` says
 *   whether the journey had already counted it completed (`completed`) or it was still on its way
 *   (`in-flight`).
 */
import { metricMeter } from '@temporalio/workflow';
import { METRICS } from '../../observability/metric-catalogue';
import { currencyLabel, withWorkflowType } from '../common/showing';

export function countReversal(kind: 'ONRAMP' | 'OFFRAMP', currency: string, after: 'completed' | 'in-flight'): void {
  metricMeter
    .createCounter(METRICS.depositsReversed.name, '1', METRICS.depositsReversed.help)
    .add(1, withWorkflowType({ kind, currency: currencyLabel(currency), after }));
}
