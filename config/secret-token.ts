/**
 * How a configured secret token (WEBHOOK_TOKEN, CODEC_SERVER_TOKEN, the partner API's token) is
 * checked. It lives in config/, below every process that reads such a token, so the receiver, the
 * codec server and the partner API share it without importing each other. Both sides are hashed
 * before the constant-time comparison, so neither the token's characters nor its length leak
 * through timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

export function tokenMatches(candidate: string | undefined, expected: string): boolean {
  const matches = timingSafeEqual(digest(candidate ?? ''), digest(expected));
  return matches && candidate !== undefined && expected.length > 0;
}
