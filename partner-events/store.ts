/**
 * Where partner events are kept: the durable log the pull API reads (`GET /events?after=`, a
 * customer's timeline) and the delivery workflows deliver from. Appends are idempotent by event id
 * (an activity retried after a crash appends nothing twice), and every event gets a position in one
 * partner-wide order that never goes back: a reader who stored a cursor misses nothing and sees
 * nothing twice, across restarts of either side.
 *
 * Two implementations: PostgreSQL (production and the cluster profile) and an embedded file log (the
 * dev stack's default). Event bodies are sealed with the payload keys before they are stored
 * (customer data never lies in plaintext at rest); ids, types, streams and positions stay readable.
 */
import type { PartnerEvent, PartnerEventStream } from './catalogue';

/** An opaque, ordered cursor: pass the last one you read to read what came after. */
export type PartnerEventCursor = string;

export interface PartnerEventPage {
  events: (PartnerEvent & { cursor: PartnerEventCursor })[];
  /** The cursor to ask with next; equal to the one asked with when nothing new came. */
  next: PartnerEventCursor;
}

export interface DisabledEndpoint {
  name: string;
  since: string;
  reason: string;
}

export interface PartnerEventStore {
  /** Appends a stream's events in their sequence order; an id already stored is skipped. */
  append(stream: PartnerEventStream, events: readonly PartnerEvent[]): Promise<void>;
  /** Events after the cursor (from the start without one), in position order, at most `limit`. */
  after(cursor: PartnerEventCursor | undefined, limit: number): Promise<PartnerEventPage>;
  /** One stream's events with a sequence above `afterSequence`, in sequence order, at most `limit`. */
  stream(stream: PartnerEventStream, afterSequence: number, limit: number): Promise<PartnerEvent[]>;
  /**
   * The highest sequence the stream holds (0 when it holds none): its high-water mark. A new run of a
   * stream (a journey signed up again after the last one was deleted, a payout reference used again,
   * a reset) numbers its events on from here, so the stream stays one gap-free sequence.
   */
  lastSequence(stream: PartnerEventStream): Promise<number>;
  /**
   * Where the stream holds the events of these ids: each id found, with its sequence. A new run of a
   * stream (a reset) that emits a fact again gives it the id it had the first time
   * (workflows/partner-events/outbox.ts): found here under another sequence, it is not published again.
   */
  sequencesOf(stream: PartnerEventStream, ids: readonly string[]): Promise<Map<string, number>>;
  /** Endpoints that answered 410 Gone: not delivered to until an operator enables them again. */
  disabledEndpoints(): Promise<DisabledEndpoint[]>;
  disableEndpoint(name: string, reason: string): Promise<void>;
  enableEndpoint(name: string): Promise<void>;
  close(): Promise<void>;
}
