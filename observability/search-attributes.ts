/**
 * The custom search attributes rampflow indexes. The dev-server launcher registers them and workflows
 * keep them current, so operators can list journeys by stage, partner user id or service customer id,
 * and the stage-age scan (observability/stage-age-scan.ts) can find the longest waiter at each stage.
 * They live in observability/, which imports nothing of ours, so the workflows that set them and the
 * scan that reads them both import them downwards. Plain constants: the workflow bundle loads them.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const RampStage = defineSearchAttributeKey('RampStage', SearchAttributeType.KEYWORD);
export const RampExternalId = defineSearchAttributeKey('RampExternalId', SearchAttributeType.KEYWORD);
export const RampCustomerId = defineSearchAttributeKey('RampCustomerId', SearchAttributeType.KEYWORD);
/**
 * When the workflow entered its current RampStage (workflow time), set in the same upsert as the stage
 * by journeys, deposits and payouts (workflows/common/showing.ts, `indexStage`). Carried through
 * continue-as-new with the rest, so it is the stage's start, not the run's.
 */
export const RampStageSince = defineSearchAttributeKey('RampStageSince', SearchAttributeType.DATETIME);

/** A search attribute type as the Temporal CLI names it (`--type`, `--search-attribute name=type`). */
export type SearchAttributeTypeName = 'Text' | 'Keyword' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';

/**
 * Name and Temporal type of each attribute, as `temporal server start-dev --search-attribute` takes them.
 * The worker refuses to start on a namespace that lacks one (workers/namespace-check.ts), and
 * docs/reference/search-attributes.md is generated from this list.
 */
export const RAMP_SEARCH_ATTRIBUTES: readonly { name: string; type: SearchAttributeTypeName; holds: string }[] = [
  {
    name: RampStage.name,
    type: 'Keyword',
    holds: 'the current stage of every workflow: journeys, deposits, payouts, ramp events, partner event deliveries',
  },
  {
    name: RampExternalId.name,
    type: 'Keyword',
    holds: "the partner's opaque user id: journeys, their deposits, ramp events that wait or park",
  },
  {
    name: RampCustomerId.name,
    type: 'Keyword',
    holds: "the service's customer id, once known: journeys, their deposits, ramp events that wait or park",
  },
  {
    name: RampStageSince.name,
    type: 'Datetime',
    holds:
      'when the workflow entered its current stage (workflow time, carried through continue-as-new): journeys, deposits, payouts',
  },
];
