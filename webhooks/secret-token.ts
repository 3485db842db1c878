/**
 * The webhook URL's path token is the only secret the service's unsigned deliveries carry. Both sides
 * are hashed before the constant-time comparison, so neither the token's characters nor its length
 * leak through timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

export function tokenMatches(candidate: string | undefined, expected: string): boolean {
  const matches = timingSafeEqual(digest(candidate ?? ''), digest(expected));
  return matches && candidate !== undefined && expected.length > 0;
}
