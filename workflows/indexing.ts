/**
 * Keeping a workflow's search attributes current at the least cost: Temporal Cloud bills every
 * search-attribute upsert as an action, so a workflow upserts only the attributes whose value
 * changed, all in one command, and none when nothing did (a stage shown again, an attribute its
 * starter already set in the start options, or one a run inherited through continue-as-new).
 */
import { upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { RampStage } from './search-attributes';

/** One of rampflow's keyword attributes (workflows/search-attributes.ts) and its value. */
export interface IndexEntry {
  key: typeof RampStage;
  value: string;
}

export function indexChanged(entries: readonly IndexEntry[]): void {
  const current = workflowInfo().typedSearchAttributes;
  const changed = entries.filter((entry) => current.get(entry.key) !== entry.value);
  if (changed.length > 0) upsertSearchAttributes(changed);
}
