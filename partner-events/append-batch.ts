/**
 * What both stores check before appending a batch: each event belongs to the stream it is appended
 * to, and the batch is in strictly increasing sequence order. Either failing is a bug of the
 * appender, reported by ids and numbers only.
 */
import { streamOf, type PartnerEvent, type PartnerEventStream } from './catalogue';

export function checkAppendBatch(stream: PartnerEventStream, events: readonly PartnerEvent[]): void {
  let previous = 0;
  for (const event of events) {
    if (streamOf(event) !== stream) throw new Error(`partner event ${event.id} does not belong to ${stream}`);
    if (!Number.isSafeInteger(event.sequence) || event.sequence < 1)
      throw new Error(`partner event ${event.id}: sequence must be a positive integer`);
    if (event.sequence <= previous)
      throw new Error(
        `partner events appended to ${stream} must come in increasing sequence order (${event.id} has ${event.sequence} after ${previous})`,
      );
    previous = event.sequence;
  }
}
