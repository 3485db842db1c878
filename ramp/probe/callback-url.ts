/**
 * Whether the callback URL rampflow would register is reachable. The interface has no call that
 * makes the service deliver a test event, so the service's own view cannot be checked; the probe
 * says whether this machine reaches the URL and how fast. The URL holds the receiver's token, so it
 * is never printed.
 */
import { request } from 'undici';
import type { ProbeLine } from './checks';

export async function callbackUrl(url: string | undefined): Promise<ProbeLine> {
  const check = 'callback-url';
  if (url === undefined)
    return { check, status: 'unchecked', detail: 'give --webhook-url to check the URL rampflow would register' };
  const noTestEvent = 'the interface has no call that makes the service deliver a test event';
  const startedAt = Date.now();
  try {
    const answer = await request(url, { method: 'GET', headersTimeout: 10_000, bodyTimeout: 10_000 });
    await answer.body.dump();
    return {
      check,
      status: 'unchecked',
      detail: `${noTestEvent}; this machine reached it (HTTP ${answer.statusCode} in ${Date.now() - startedAt} ms)`,
    };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return {
      check,
      status: 'unchecked',
      detail: `${noTestEvent}; this machine could not reach it either (${typeof code === 'string' ? code : 'no answer'})`,
    };
  }
}
