/**
 * Signs a partner-event delivery per Standard Webhooks, with the `standardwebhooks` package itself, so
 * what we send is what every Standard Webhooks library verifies:
 * - `webhook-id`: the event's id, the same on every retry (the partner's idempotency key);
 * - `webhook-timestamp`: the attempt's time in whole seconds (a retry gets a fresh one, so a
 *   receiver's replay window holds; the event's own time is `timestamp` in the body);
 * - `webhook-signature`: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` once per configured
 *   secret, space-separated, so a partner that knows either the old or the new secret of a rotation
 *   accepts the delivery.
 */
import { Webhook } from 'standardwebhooks';

export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The spec forbids `.` in the id (it delimits the signed content); whitespace would break the header. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;

export type DeliverySigner = (id: string, body: string, at: Date) => WebhookHeaders;

/** A signer for one endpoint's secrets (each decoded once); the secrets are checked at start (endpoints.ts). */
export function createSigner(secrets: readonly string[]): DeliverySigner {
  if (secrets.length === 0) throw new Error('a partner endpoint needs at least one secret to sign with');
  const keys = secrets.map((secret) => new Webhook(secret));
  return (id, body, at) => {
    if (!SAFE_ID.test(id)) throw new Error('a webhook id must be 1 to 128 letters, digits, _ or -');
    // The library floors to whole seconds when it signs; the header must carry that same number.
    const timestamp = new Date(Math.floor(at.getTime() / 1000) * 1000);
    return {
      'webhook-id': id,
      'webhook-timestamp': String(timestamp.getTime() / 1000),
      'webhook-signature': keys.map((key) => key.sign(id, timestamp, body)).join(' '),
    };
  };
}
