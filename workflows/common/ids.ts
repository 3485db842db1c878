/**
 * Workflow IDs are business keys, so every start and every event is idempotent: a second start of the
 * same journey, deposit or delivered event finds the workflow already there.
 */
export const journeyWorkflowId = (externalId: string): string => `customer/${externalId}`;
export const depositWorkflowId = (depositId: string): string => `deposit/${depositId}`;
/** A payout from the partner's balance is keyed by the partner's own reference. */
export const payoutWorkflowId = (reference: string): string => `payout/${reference}`;
export const eventWorkflowId = (event: string, payloadId: string): string => `event/${event}/${payloadId}`;

const DEPOSIT_PREFIX = depositWorkflowId('');
/** The deposit id a `deposit/<depositId>` workflow ID names. */
export const depositIdOf = (workflowId: string): string => {
  if (!workflowId.startsWith(DEPOSIT_PREFIX)) throw new Error(`not a deposit workflow ID: ${workflowId}`);
  return workflowId.slice(DEPOSIT_PREFIX.length);
};
