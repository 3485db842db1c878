/** The bounds both stores put on a read: a page is never larger than MAX_PAGE, whatever is asked. */

export const MAX_PAGE = 1000;

/** The number of events a page may hold: `limit`, at most MAX_PAGE. */
export function pageLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1) throw new Error(`a page's limit must be a positive integer, not ${limit}`);
  return Math.min(limit, MAX_PAGE);
}

/** A stream read's starting point: the sequence already seen (0 for the whole stream). */
export function sequenceFloor(afterSequence: number): number {
  if (!Number.isSafeInteger(afterSequence) || afterSequence < 0)
    throw new Error(`afterSequence must be a whole number of 0 or more, not ${afterSequence}`);
  return afterSequence;
}
