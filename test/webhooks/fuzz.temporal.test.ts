/**
 * Random and malformed bodies, content types and paths thrown at the receiver while Temporal is up: it
 * never crashes and never answers 5xx. Whatever it accepts (well-formed envelopes of unknown events,
 * mostly) is started on a task queue no worker polls, so nothing runs.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_NAMES, LEGACY_EVENT_NAMES } from '../../ramp/events';
import { connectClient, uniqueTaskQueue } from '../support/temporal';
import { customer, deposit, payment, trade } from '../ramp/support/records';
import { startReceiver, TEST_TOKEN, type TestReceiver } from './support/receiver';

let receiver: TestReceiver;
let closeClient: () => Promise<void>;

beforeAll(async () => {
  const connected = await connectClient();
  closeClient = connected.close;
  receiver = await startReceiver({ client: connected.client, taskQueue: uniqueTaskQueue('fuzz-no-worker') });
});
afterAll(async () => {
  await receiver?.close();
  await closeClient?.();
});

const eventName = fc.oneof(
  fc.constantFrom(...EVENT_NAMES, ...Object.keys(LEGACY_EVENT_NAMES)),
  fc.string({ maxLength: 80 }),
);
const samplePayload = fc.constantFrom<Record<string, unknown>>(customer, deposit, trade, payment, {});

/** A real payload with some fields replaced, removed or added. */
const mutatedPayload = fc
  .tuple(
    samplePayload,
    fc.dictionary(
      fc.constantFrom('id', 'status', 'customerId', 'amount', 'deposit', 'reference', '__proto__', 'constructor', 'x'),
      fc.jsonValue(),
    ),
    fc.boolean(),
  )
  .map(([payload, changes, dropId]) => {
    const next: Record<string, unknown> = { ...payload, ...changes };
    if (dropId) delete next.id;
    return next;
  });

const envelope = fc.record(
  { event: eventName, payload: fc.oneof(mutatedPayload, fc.jsonValue()) },
  { requiredKeys: [] },
);

/** Envelopes the receiver should accept: a real payload under a fresh id, or an unknown but well-formed name. */
const payloadId = fc.stringMatching(/^[A-Za-z0-9-]{1,40}$/);
const wellFormed = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(
        ['CUSTOMER_APPROVED', customer],
        ['user.rejected', customer],
        ['DEPOSIT_APPROVED', deposit],
        ['trade.created', trade],
        ['PAYMENT_SETTLED', payment],
      ),
      payloadId,
    )
    .map(([[event, payload], id]) => ({ event, payload: { ...payload, id } })),
  fc.tuple(fc.stringMatching(/^[A-Z][A-Z_]{0,30}$/), payloadId).map(([event, id]) => ({ event, payload: { id } })),
);

/** What goes on the wire: good and bad envelopes, any JSON, oversized, truncated JSON, text, or raw bytes. */
const rawBody = fc.oneof(
  wellFormed.map((body) => JSON.stringify(body)),
  envelope.map((body) => JSON.stringify(body)),
  fc
    .nat({ max: 200_000 })
    .map((size) => JSON.stringify({ event: 'DEPOSIT_APPROVED', payload: { id: 'big', padding: 'x'.repeat(size) } })),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  envelope
    .map((body) => JSON.stringify(body))
    .chain((text) => fc.nat({ max: Math.max(text.length - 1, 0) }).map((cut) => text.slice(0, cut))),
  fc.string({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
);

const contentType = fc.constantFrom<string | null>(
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'text/plain',
  'application/octet-stream',
  'multipart/form-data',
  null,
  'application/json; charset=latin1',
);

const path = fc.oneof(
  { weight: 4, arbitrary: fc.constant(`/webhooks/ramp/${TEST_TOKEN}`) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map((token) => `/webhooks/ramp/${encodeURIComponent(token)}`) },
);

describe('the receiver under random input', () => {
  it('never crashes and never answers 5xx while Temporal is up', async () => {
    await fc.assert(
      fc.asyncProperty(rawBody, contentType, path, async (raw, type, target) => {
        const { status } = await receiver.post(undefined, { raw, contentType: type, path: target });
        expect([200, 400, 404, 413, 415]).toContain(status);
      }),
      { numRuns: 300 },
    );
    const health = await fetch(`${receiver.url}/healthz`);
    expect(health.status).toBe(200);
    const metrics = await (await fetch(`${receiver.url}/metrics`)).text();
    expect(metrics).toMatch(/rampflow_webhook_requests_total\{outcome="error"\} 0/);
    expect(metrics).toMatch(/rampflow_webhook_requests_total\{outcome="unavailable"\} 0/);
    // The generators reach every answer, Temporal's included (so the property is not vacuous).
    const count = (outcome: string) =>
      Number(new RegExp(`rampflow_webhook_requests_total\\{outcome="${outcome}"\\} (\\d+)`).exec(metrics)?.[1]);
    for (const outcome of ['accepted', 'invalid', 'not_found', 'too_large', 'unsupported_media_type'])
      expect(count(outcome), outcome).toBeGreaterThan(0);
  });
});
