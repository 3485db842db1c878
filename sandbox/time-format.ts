/** The timestamp shapes the interface shows. */

/** ISO 8601 UTC with milliseconds, the shape of most timestamps. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** `YYYY-MM-DD HH:mm:ss` (UTC), the shape the interface shows for a payment's createTime. */
export function paymentTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}
