/**
 * Keeping a workflow's search attributes current at the least cost: Temporal Cloud bills every
 * search-attribute upsert as an action, so a workflow upserts only the attributes whose value
 * changed, all in one command, and none when nothing did (a stage shown again, an attribute its
 * starter already set in the start options, or one a run inherited through continue-as-new).
 */
import { upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { workflowNow } from './clock';
import { STAGE_SINCE_INDEXED, takesPatch } from './patches';
import { RampStage, RampStageSince } from '../../observability/search-attributes';

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
 * `indexChanged` with the stage first, and RampStageSince set to now in the same upsert when the stage
 * changes (or when the run has a stage but no time for it: a stage its starter indexed in the start
 * options, or one a run recorded before the attribute entered). Showing the same stage again changes
 * neither. The stage-age scan (observability/stage-age-scan.ts) reads it.
 */
export function indexStage(stage: string, others: readonly IndexEntry[] = []): void {
  const current = workflowInfo().typedSearchAttributes;
  const needsSince = current.get(RampStage) !== stage || current.get(RampStageSince) === undefined;
  if (!needsSince || !takesPatch(STAGE_SINCE_INDEXED)) {
    indexChanged([{ key: RampStage, value: stage }, ...others]);
    return;
  }
  const changed = others.filter((entry) => current.get(entry.key) !== entry.value);
  upsertSearchAttributes([
    { key: RampStage, value: stage },
    { key: RampStageSince, value: new Date(workflowNow()) },
    ...changed,
  ]);
}
