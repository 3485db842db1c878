/**
 * What a workflow shows and counts: its search attributes (one upsert per change), its stage metrics,
 * what the trust rule turned away, a deposit's money and reconciliation's repairs.
 */
import { log, metricMeter, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { workflowNow } from './timings';
import { RampStage, RampStageSince } from '../../observability/search-attributes';
import { METRICS } from '../../observability/metric-catalogue';

/**
 * Keeping a workflow's search attributes current at the least cost: Temporal Cloud bills every
 * search-attribute upsert as an action, so a workflow upserts only the attributes whose value
 * changed, all in one command, and none when nothing did (a stage shown again, an attribute its
 * starter already set in the start options, or one a run inherited through continue-as-new).
 */
/** One of rampflow's keyword attributes (observability/search-attributes.ts) and its value. */
export interface IndexEntry {
  key: typeof RampStage;
  value: string;
}

export function indexChanged(entries: readonly IndexEntry[]): void {
  const current = workflowInfo().typedSearchAttributes;
  const changed = entries.filter((entry) => current.get(entry.key) !== entry.value);
  if (changed.length > 0) upsertSearchAttributes(changed);
}

/**
 * `indexChanged` with the stage first, and RampStageSince set in the same upsert when the stage
 * changes (or when the run has a stage but no time for it: a stage its starter indexed in the start
 * options, or one a run recorded before the attribute entered). Showing the same stage again changes
 * neither. The stage-age scan (observability/stage-age-scan.ts) reads it. `since` is now, or when the
 * stage was entered, for a stage indexed after entering it (a deposit's RECEIVED, workflows/deposit/run.ts).
 */
export function indexStage(stage: string, others: readonly IndexEntry[] = [], since: number = workflowNow()): void {
  const current = workflowInfo().typedSearchAttributes;
  const needsSince = current.get(RampStage) !== stage || current.get(RampStageSince) === undefined;
  if (!needsSince) {
    indexChanged([{ key: RampStage, value: stage }, ...others]);
    return;
  }
  const changed = others.filter((entry) => current.get(entry.key) !== entry.value);
  upsertSearchAttributes([
    { key: RampStage, value: stage },
    { key: RampStageSince, value: new Date(since) },
    ...changed,
  ]);
}

/**
 * A stage indexed where the workflow waits rather than when it enters it (a deposit's, for one:
 * workflows/deposit/run.ts decides which stages): an upsert is a billed action, and a stage passed
 * within the same workflow task, or within seconds, has nothing waiting at it for an operator or
 * reconciliation to see. `entered` indexes at once, or holds the stage (with the time it was entered)
 * until its wait starts unsettled (`waiting`) or, for one held `untilPoll`, until the wait first polls
 * (`polled`). Entering the next stage drops what is held: that stage's upsert carries the rest.
 */
export class StageIndexWhereWaiting {
  private held: { stage: string; since: number; others: readonly IndexEntry[]; untilPoll: boolean } | undefined;

  entered(stage: string, others: readonly IndexEntry[], hold: 'no' | 'until-waiting' | 'until-poll'): void {
    this.held = undefined;
    if (hold === 'no') indexStage(stage, others);
    else this.held = { stage, since: workflowNow(), others, untilPoll: hold === 'until-poll' };
  }

  /** A wait of the current stage starts and is not settled. */
  waiting(): void {
    if (this.held && !this.held.untilPoll) this.flush();
  }

  /** The wait polls: it has outlasted its first poll interval. */
  polled(): void {
    this.flush();
  }

  private flush(): void {
    const held = this.held;
    if (!held) return;
    this.held = undefined;
    indexStage(held.stage, held.others, held.since);
  }
}

/**
 * Stages, counted for operators through the workflow metric meter (observability/metric-catalogue.ts):
 * one call, `stageEntered(stage)`, where a workflow shows its stage (each run's `enterStage()`:
 * the journey's, the deposit's, the payout's), and this section does the rest:
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

/** Parked in NEEDS_ATTENTION (workflows/common/parking.ts). */
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

/**
 * What deposits do with money, counted for operators through the workflow metric meter (it emits
 * nothing while a history replays). Labels are the deposit's kind, its currency and a fixed word,
 * never an id or an amount.
 *
 * - `rampflow_deposits_reversed_total`: the service refunded a deposit after confirming it; `after` says
 *   whether the journey had already counted it completed (`completed`) or it was still on its way
 *   (`in-flight`).
 */
export function countReversal(kind: 'ONRAMP' | 'OFFRAMP', currency: string, after: 'completed' | 'in-flight'): void {
  metricMeter
    .createCounter(METRICS.depositsReversed.name, '1', METRICS.depositsReversed.help)
    .add(1, withWorkflowType({ kind, currency: currencyLabel(currency), after }));
}

/** What a reconciliation run counted (its ReconcileResult, workflows/reconcile/types.ts). */
interface ReconcileRunFigures {
  truncated: boolean;
  pages?: Readonly<Record<string, number | undefined>>;
  examined: Readonly<Record<string, number | undefined>>;
  repaired: number;
  missed: number;
}

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
export function reportReconcileRun(result: ReconcileRunFigures): void {
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
