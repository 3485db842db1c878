/**
 * When a deposit's stage reaches the index (`RampStage`, `RampStageSince` and its customer): where the
 * deposit waits, not at every stage it passes. Temporal Cloud bills each upsert, and a deposit the
 * service moves on within seconds passes RECEIVED, CONFIRMED and TRADE_CREATED, often several in one
 * workflow task, with nothing waiting at them for an operator or reconciliation to see.
 *
 * - A stage that needs someone (ACTION_REQUIRED, NEEDS_ATTENTION) and an end are indexed on entry.
 * - A stage the deposit passes through (CONFIRMED, TRADE_CREATED, TRADE_SETTLED) is indexed when its
 *   wait starts and is not settled already; one whose fact is already known is never indexed: the
 *   next stage's upsert follows in the same workflow task.
 * - RECEIVED, on its first entry (the index shows no other stage), is indexed at its wait's first poll
 *   (5 s: workflows/common/waiting.ts): most deposits are confirmed sooner. Entered again after a park,
 *   it is indexed when its wait starts, like the others.
 *
 * A stage indexed late carries the time it was entered. The query and the current details show every
 * stage at once. Runs recorded before DEPOSIT_FIRST_LOOK index every stage on entry.
 */
import { workflowInfo } from '@temporalio/workflow';
import { RampStage } from '../../observability/search-attributes';
import type { DepositStage } from '../common/messages';
import { DEPOSIT_FIRST_LOOK, takesPatch } from '../common/patches';
import { type IndexEntry, indexStage } from '../common/showing';
import { workflowNow } from '../common/timings';

const PASSED_THROUGH: readonly DepositStage[] = ['RECEIVED', 'CONFIRMED', 'TRADE_CREATED', 'TRADE_SETTLED'];

interface Pending {
  stage: DepositStage;
  since: number;
  others: IndexEntry[];
  /** Waits for the wait's first poll, not only for the wait to start (RECEIVED's first entry). */
  untilPoll: boolean;
}

export class DepositStageIndex {
  private pending: Pending | undefined;

  /** The deposit entered `stage`; `others` are the customer's attributes it knows (indexed when changed). */
  entered(stage: DepositStage, others: IndexEntry[]): void {
    this.pending = undefined;
    if (!PASSED_THROUGH.includes(stage) || !takesPatch(DEPOSIT_FIRST_LOOK)) {
      indexStage(stage, others);
      return;
    }
    const shown = workflowInfo().typedSearchAttributes.get(RampStage);
    const untilPoll = stage === 'RECEIVED' && (shown === undefined || shown === 'RECEIVED');
    this.pending = { stage, since: workflowNow(), others, untilPoll };
  }

  /** A wait of the current stage starts and is not settled: the deposit waits here. */
  waiting(): void {
    if (this.pending && !this.pending.untilPoll) this.flush();
  }

  /** The wait polls: it has outlasted its first poll interval. */
  polled(): void {
    this.flush();
  }

  private flush(): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    indexStage(pending.stage, pending.others, pending.since);
  }
}
