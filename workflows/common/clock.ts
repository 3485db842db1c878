/**
 * The one sanctioned reader of the clock in workflow code. Inside the workflow sandbox `Date` is
 * Temporal's deterministic clock (the time of the current workflow task, the same on every replay);
 * reading it through this function keeps every other use flagged by the linter.
 */
export function workflowNow(): number {
  // eslint-disable-next-line no-restricted-properties -- deterministic inside the workflow sandbox, see above
  return Date.now();
}

export const isoNow = (): string => new Date(workflowNow()).toISOString();
