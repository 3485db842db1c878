/**
 * Stages, counted for operators through the workflow metric meter (observability/metric-catalogue.ts):
 * one call, `stageEntered(stage)`, where a workflow shows its stage (the journey's `show()`, the
 * deposit's `show()`, the payout's `enter()`), and this module does the rest:
 *
 * - `rampflow_stage_transitions_total{stage}`: the workflow entered a stage it was not in (showing
 *   the same stage again with new words is not a transition);
 * - `rampflow_stage_duration_seconds{stage}`: how long it stayed in the stage it left, from workflow
 *   time (deterministic);
 * - a deposit's end: `rampflow_deposits_completed_total{kind,currency}` and the amount moved,
 *   `rampflow_deposit_amount{kind,currency,outcome}` (completed or reversed), a float histogram
 *   whose `_sum` is the money (the runtime's counters hold integers only);
 * - a payout's end: `rampflow_payouts_total{outcome}` (settled or cancelled), and a settled one's
 *   amount, `rampflow_payout_amount{currency}` (the currency deducted from the partner's balance).
 *
 * Replay-safe: the meter emits nothing while a history replays, and this module only reads workflow
 * time and `workflowInfo()`, so it changes no command. Every series carries `workflow_type` (the SDK
 * adds its own `namespace`, `taskQueue` and `workflowType`; the snake-case label matches the SDK's
 * `temporal_*` metrics, so one query joins both); no label holds an id or an amount.
 *
 * Amounts are JavaScript numbers added to a float counter: exact enough for a dashboard of money
 * moved (a double holds 15–16 significant digits; a sum of cents drifts in its last digits over
 * millions of deposits, and a crypto amount's 18th decimal is lost at once), never a figure to account with: the service's records are the ledger.
 *
 * A run continued-as-new starts with no memory of when its stage began: its first stage shown is not
 * counted as a transition (it carries on the stage of the run before), and the time spent in that
 * stage is not observed when it is left (it would be short by the earlier run's share).
 */
import { metricMeter, workflowInfo } from '@temporalio/workflow';
import { METRICS } from '../../observability/metric-catalogue';
import { workflowNow } from './clock';

interface StageMemory {
  stage: string | undefined;
  /** Workflow time the stage began; undefined when it began in an earlier run. */
  since: number | undefined;
}

/** The money a deposit moved, as the deposit workflow holds it. */
export interface DepositMoney {
  kind: string;
  currency: string;
  amount: string;
}

/**
 * Per run: the SDK gives each workflow its own module state, and the key keeps two runs apart
 * anyway. An entry is dropped when its workflow reaches an end stage.
 */
const memories = new Map<string, StageMemory>();
const END_STAGES = new Set([
  'COMPLETED',
  'REVERSED',
  'REJECTED',
  'CANCELLED',
  'DISMISSED',
  'SETTLED',
  'CLOSED',
  'DELETED',
  'ENDED',
  'FAILED',
]);

/** The money a payout moved: what the partner's balance paid, in the currency deducted. */
export interface PayoutMoney {
  deductCurrency: string;
  deductAmount: string;
}

export function stageEntered(stage: string, deposit?: DepositMoney, payout?: PayoutMoney): void {
  const info = workflowInfo();
  let memory = memories.get(info.runId);
  if (!memory) {
    memory = { stage: undefined, since: undefined };
    memories.set(info.runId, memory);
    if (info.continuedFromExecutionRunId !== undefined) {
      memory.stage = stage;
      return;
    }
  }
  if (memory.stage === stage) return;
  const now = workflowNow();
  if (memory.stage !== undefined && memory.since !== undefined) {
    metricMeter
      .createHistogram(METRICS.stageDuration.name, 'float', 's', METRICS.stageDuration.help)
      .record(Math.max(0, now - memory.since) / 1000, withWorkflowType({ stage: memory.stage }));
  }
  memory.stage = stage;
  memory.since = now;
  metricMeter
    .createCounter(METRICS.stageTransitions.name, '1', METRICS.stageTransitions.help)
    .add(1, withWorkflowType({ stage }));
  if (deposit) countDepositEnd(stage, deposit);
  if (info.workflowType === 'payout' && (stage === 'SETTLED' || stage === 'CANCELLED' || stage === 'FAILED')) {
    metricMeter
      .createCounter(METRICS.payoutsEnded.name, '1', METRICS.payoutsEnded.help)
      .add(1, withWorkflowType({ outcome: stage.toLowerCase() }));
    if (stage === 'SETTLED' && payout) countPayoutAmount(payout);
  }
  if (END_STAGES.has(stage)) memories.delete(info.runId);
}

function countDepositEnd(stage: string, deposit: DepositMoney): void {
  if (stage !== 'COMPLETED' && stage !== 'REVERSED') return;
  const labels = withWorkflowType({ kind: deposit.kind, currency: currencyLabel(deposit.currency) });
  if (stage === 'COMPLETED')
    metricMeter.createCounter(METRICS.depositsCompleted.name, '1', METRICS.depositsCompleted.help).add(1, labels);
  const amount = Number(deposit.amount);
  if (Number.isFinite(amount) && amount > 0) {
    metricMeter
      .createHistogram(METRICS.depositAmount.name, 'float', '', METRICS.depositAmount.help)
      .record(amount, { ...labels, outcome: stage === 'COMPLETED' ? 'completed' : 'reversed' });
  }
}

function countPayoutAmount(payout: PayoutMoney): void {
  const amount = Number(payout.deductAmount);
  if (!Number.isFinite(amount) || amount <= 0) return;
  metricMeter
    .createHistogram(METRICS.payoutAmount.name, 'float', '', METRICS.payoutAmount.help)
    .record(amount, withWorkflowType({ currency: currencyLabel(payout.deductCurrency) }));
}

/** The labels every workflow-emitted rampflow series carries, with `extra`. */
export function withWorkflowType<T extends Record<string, string>>(extra: T): T & { workflow_type: string } {
  return { ...extra, workflow_type: workflowInfo().workflowType };
}

/** A currency code as a label, or `other`: a label's values must stay a short, fixed list. */
export function currencyLabel(currency: string): string {
  return /^[A-Z0-9]{2,10}$/.test(currency) ? currency : 'other';
}

/** A park's failure type as a label (the ParkRequest's errorType, never its words), or `other`. */
export function reasonLabel(errorType: string | undefined): string {
  if (errorType === undefined || errorType === '') return 'unknown';
  return /^[A-Za-z][A-Za-z0-9_]{0,47}$/.test(errorType) ? errorType : 'other';
}

/** Parked in NEEDS_ATTENTION (workflows/common/operator.ts). */
export function countParked(stage: string, errorType: string | undefined): void {
  metricMeter
    .createCounter(METRICS.parked.name, '1', METRICS.parked.help)
    .add(1, withWorkflowType({ stage, reason: reasonLabel(errorType) }));
}

/** Left NEEDS_ATTENTION, and how. */
export function countResumed(stage: string, errorType: string | undefined, decision: string): void {
  metricMeter
    .createCounter(METRICS.resumed.name, '1', METRICS.resumed.help)
    .add(1, withWorkflowType({ stage, reason: reasonLabel(errorType), decision }));
}
