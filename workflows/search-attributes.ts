/**
 * The custom search attributes rampflow indexes. The dev-server launcher registers them and workflows
 * keep them current, so operators can list journeys by stage, partner user id or service customer id.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const RampStage = defineSearchAttributeKey('RampStage', SearchAttributeType.KEYWORD);
export const RampExternalId = defineSearchAttributeKey('RampExternalId', SearchAttributeType.KEYWORD);
export const RampCustomerId = defineSearchAttributeKey('RampCustomerId', SearchAttributeType.KEYWORD);

/** Name and Temporal type of each attribute, as `temporal server start-dev --search-attribute` takes them. */
export const RAMP_SEARCH_ATTRIBUTES = [RampStage, RampExternalId, RampCustomerId].map((key) => ({
  name: key.name,
  type: 'Keyword' as const,
}));
