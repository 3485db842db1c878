/**
 * The cursor both stores give out: the event's position in the partner-wide order, as a decimal
 * string. Callers treat it as opaque; the store checks it, so a cursor that is not one it could have
 * given out is refused (400) instead of read as "from the start".
 */
import { PartnerEventCursorError } from './store-errors';
import type { PartnerEventCursor } from './store';

/** Positions are PostgreSQL bigserials: 1 .. 2^63-1. "0" is the cursor before the first event. */
const MAX_POSITION = 2n ** 63n - 1n;
const DECIMAL = /^(0|[1-9][0-9]{0,18})$/;

/** The position a cursor stands for (0 when absent: before the first event). */
export function positionOf(cursor: PartnerEventCursor | undefined): bigint {
  if (cursor === undefined) return 0n;
  if (!DECIMAL.test(cursor)) throw new PartnerEventCursorError();
  const position = BigInt(cursor);
  if (position > MAX_POSITION) throw new PartnerEventCursorError();
  return position;
}

export function cursorOf(position: bigint | number | string): PartnerEventCursor {
  return BigInt(position).toString(10);
}
