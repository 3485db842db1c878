/**
 * The errors a partner event store raises that its callers act on: the pull API answers 400 for a
 * bad cursor and 503 while the store cannot be reached; an activity appending retries on
 * unavailability and not on a conflict (a bug to look at). None of them carries an event's body.
 */

/** The cursor a caller sent is not one the store gave out. */
export class PartnerEventCursorError extends Error {
  constructor() {
    super('the cursor is not valid: pass back a cursor (or `next`) exactly as a page returned it');
    this.name = 'PartnerEventCursorError';
  }
}

/** The store cannot be reached now (database down, connections exhausted); worth a retry later. */
export class PartnerEventStoreUnavailableError extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`the partner event store is unavailable: ${reason}`, options);
    this.name = 'PartnerEventStoreUnavailableError';
  }
}

/**
 * Another event already holds this event's sequence in its stream: a new run of the stream numbered
 * from 1 where an earlier run's events are kept (the recording activity answers with the stream's
 * last sequence, and the outbox numbers its events on from there), or two writers of one stream.
 */
export class PartnerEventConflictError extends Error {
  constructor(stream: string, sequence: number, id: string) {
    super(`partner event ${id}: sequence ${sequence} of ${stream} is already held by another event`);
    this.name = 'PartnerEventConflictError';
  }
}
