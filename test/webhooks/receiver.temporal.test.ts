/**
 * The receiver's answers, against the real dev server: what reaches Temporal (200), what never does
 * (400/403/404/413/415), duplicates, unknown events dropped, 503 when Temporal cannot be reached, and
 * the metrics of all of it. Its receivers hand every delivery to a ramp-event workflow
 * (`routing: 'workflow'`), so what reached Temporal can be looked for by the event's workflow ID;
 * direct routing has its own file (direct-route.temporal.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../dev/ports';
import { DEFAULT_BODY_LIMIT_BYTES } from '../../webhooks/server';
import { deposit } from '../ramp/support/records';
import { startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { startReceiver, TEST_TOKEN, workflowExists, type TestReceiver } from './support/receiver';

let h: JourneyHarness;
let receiver: TestReceiver;

beforeAll(async () => {
  h = await startJourneyHarness();
  receiver = await startReceiver({ client: h.client, taskQueue: h.taskQueue, routing: 'workflow' });
});
afterAll(async () => {
  await receiver?.close();
  await h?.close();
});

/** A well-formed DEPOSIT_RECEIVED whose id is new, so its would-be workflow can be looked for. */
function freshDelivery() {
  const id = randomUUID();
  return {
    id,
    workflowId: `event/DEPOSIT_RECEIVED/${id}`,
    body: { event: 'DEPOSIT_RECEIVED', payload: { ...deposit, id } },
  };
}

async function expectNothingStarted(workflowId: string): Promise<void> {
  expect(await workflowExists(h.client, workflowId)).toBe(false);
}

describe('the webhook receiver', () => {
  it('starts the ramp-event workflow once and answers 200; a repeat answers 200 as a duplicate', async () => {
    const { body, workflowId } = freshDelivery();
    expect(await receiver.post(body)).toEqual({ status: 200, body: JSON.stringify({ status: 'accepted' }) });
    expect(await workflowExists(h.client, workflowId)).toBe(true);
    expect(await receiver.post(body)).toEqual({ status: 200, body: JSON.stringify({ status: 'duplicate' }) });
    // Under its older name it is the same event.
    expect(await receiver.post({ ...body, event: 'deposit.received' })).toMatchObject({
      status: 200,
      body: JSON.stringify({ status: 'duplicate' }),
    });
    expect(await workflowExists(h.client, workflowId.replace('DEPOSIT_RECEIVED', 'deposit.received'))).toBe(false);

    // What went into the history: the name, the id and a compact hint, not the payload.
    const history = JSON.stringify(await h.client.workflow.getHandle(workflowId).fetchHistory());
    for (const withheld of [deposit.txReference, deposit.receiverVirtualAccount.accountNumber, deposit.txid])
      expect(history).not.toContain(withheld);
  });

  it('answers 404 for a wrong or missing token, exactly as for a path that does not exist', async () => {
    const notFound = await receiver.post({}, { path: '/no/such/path' });
    expect(notFound.status).toBe(404);
    for (const path of [
      '/webhooks/ramp/wrong-token-0123456789abcdef',
      `/webhooks/ramp/${TEST_TOKEN}x`,
      `/webhooks/ramp/${TEST_TOKEN.slice(0, -1)}`,
      '/webhooks/ramp/',
      '/webhooks/ramp',
    ]) {
      const { body, workflowId } = freshDelivery();
      expect(await receiver.post(body, { path })).toEqual(notFound);
      await expectNothingStarted(workflowId);
    }
  });

  it('answers 400 for bodies that are not an envelope {event, payload: {id}}, starting nothing', async () => {
    const cases: { body?: unknown; raw?: string }[] = [
      { raw: '{"event": "DEPOSIT_RECEIVED", "payload": ' },
      { raw: '' },
      { body: { event: 'DEPOSIT_RECEIVED' } },
      { body: { event: 'DEPOSIT_RECEIVED', payload: { ...deposit, id: undefined } } },
      { body: { event: 'DEPOSIT_RECEIVED', payload: { id: 42 } } },
      { body: { event: 7, payload: { id: `x-${randomUUID()}` } } },
      { body: { event: 'not an event name', payload: { id: `x-${randomUUID()}` } } },
      { raw: `{"event":"DEPOSIT_RECEIVED","payload":{"id":"proto-${randomUUID()}","__proto__":{"polluted":true}}}` },
    ];
    for (const testCase of cases) {
      const response = await receiver.post(testCase.body, testCase.raw !== undefined ? { raw: testCase.raw } : {});
      expect(response.status, JSON.stringify(testCase)).toBe(400);
    }
    await expectNothingStarted('event/DEPOSIT_RECEIVED/42');
  });

  it('hands over an envelope whose payload does not match our schema, counting and logging the fields by path, never by value', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const tolerant = await startReceiver({ client: h.client, taskQueue: h.taskQueue, logger, routing: 'workflow' });
    try {
      // What a user of the real service met: an id, a customer and a status, nothing else.
      const partialId = randomUUID();
      expect(
        (
          await tolerant.post({
            event: 'DEPOSIT_RECEIVED',
            payload: { id: partialId, customerId: deposit.customerId, status: 'RECEIVED' },
          })
        ).status,
      ).toBe(200);
      expect(await workflowExists(h.client, `event/DEPOSIT_RECEIVED/${partialId}`)).toBe(true);
      // A mistyped field under an older name: handed over too, the value never logged.
      const mistypedId = randomUUID();
      expect(
        (
          await tolerant.post({
            event: 'deposit.approved',
            payload: { ...deposit, id: mistypedId, amount: { value: 'secret-amount-17' } },
          })
        ).status,
      ).toBe(200);
      expect(await workflowExists(h.client, `event/DEPOSIT_APPROVED/${mistypedId}`)).toBe(true);
      // A payload that matches is not counted.
      expect((await tolerant.post(freshDelivery().body)).status).toBe(200);

      const mismatches = lines
        .map((line) => JSON.parse(line) as { msg: string; payloadId?: string; fields?: string[] })
        .filter((line) => line.msg.includes('does not match our schema'));
      expect(mismatches.map(({ payloadId, fields }) => ({ payloadId, fields }))).toEqual([
        {
          payloadId: partialId,
          fields: expect.arrayContaining(['type', 'currency', 'amount', 'timestamp']) as unknown,
        },
        { payloadId: mistypedId, fields: ['amount'] },
      ]);
      expect(lines.join('\n')).not.toContain('secret-amount-17');
      const metrics = await (await fetch(`${tolerant.url}/metrics`)).text();
      expect(metrics).toContain('rampflow_webhook_payload_mismatches_total{event="DEPOSIT_RECEIVED"} 1');
      expect(metrics).toContain('rampflow_webhook_payload_mismatches_total{event="DEPOSIT_APPROVED"} 1');
      expect(metrics).toMatch(/rampflow_webhook_requests_total\{outcome="accepted"\} 3/);
    } finally {
      await tolerant.close();
    }
  });

  it('answers 415 for anything but JSON, starting nothing', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', null]) {
      const { body, workflowId } = freshDelivery();
      expect((await receiver.post(body, { contentType })).status).toBe(415);
      await expectNothingStarted(workflowId);
    }
  });

  it('answers 413 beyond the body cap, starting nothing', async () => {
    const { body, workflowId } = freshDelivery();
    const padded = { ...body, payload: { ...body.payload, padding: 'x'.repeat(DEFAULT_BODY_LIMIT_BYTES) } };
    expect((await receiver.post(padded)).status).toBe(413);
    await expectNothingStarted(workflowId);
  });

  it('answers 403 to a source outside WEBHOOK_ALLOWED_IPS (before looking at the token), starting nothing', async () => {
    const guarded = await startReceiver({
      client: h.client,
      taskQueue: h.taskQueue,
      allowedIps: ['203.0.113.7', '198.51.100.0/24'],
    });
    const open = await startReceiver({ client: h.client, taskQueue: h.taskQueue, allowedIps: ['127.0.0.0/8'] });
    try {
      const { body, workflowId } = freshDelivery();
      expect((await guarded.post(body)).status).toBe(403);
      expect((await guarded.post(body, { path: '/webhooks/ramp/wrong-token-0123456789abcdef' })).status).toBe(403);
      await expectNothingStarted(workflowId);
      expect((await open.post(body)).status).toBe(200);
    } finally {
      await guarded.close();
      await open.close();
    }
  });

  it('counts an unknown event name and drops it with 200: nothing starts, nothing parks', async () => {
    const id = randomUUID();
    const count = async () =>
      (await receiver.metrics.registry.getSingleMetricAsString('rampflow_webhook_unknown_events_total')).match(
        /rampflow_webhook_unknown_events_total (\d+)/,
      )?.[1];
    const before = Number((await count()) ?? 0);
    expect(await receiver.post({ event: 'ACCOUNT_FROZEN', payload: { id } })).toEqual({
      status: 200,
      body: JSON.stringify({ status: 'ignored' }),
    });
    // A replay of it is dropped the same way.
    expect((await receiver.post({ event: 'ACCOUNT_FROZEN', payload: { id } })).status).toBe(200);
    await expectNothingStarted(`event/ACCOUNT_FROZEN/${id}`);
    expect(Number(await count())).toBe(before + 2);
  });

  it('answers 503 when Temporal cannot be reached, so the service retries', async () => {
    const nowhere = Connection.lazy({ address: `127.0.0.1:${await freePort()}` });
    const unreachable = await startReceiver({
      client: new Client({ connection: nowhere }),
      taskQueue: h.taskQueue,
      handoffTimeoutMs: 2_000,
    });
    try {
      const { body, workflowId } = freshDelivery();
      expect(await unreachable.post(body)).toEqual({
        status: 503,
        body: JSON.stringify({ error: 'temporarily unavailable' }),
      });
      await expectNothingStarted(workflowId);
    } finally {
      await unreachable.close();
      await nowhere.close();
    }
  });

  it('serves /healthz and counts requests by outcome and handoff latency in /metrics', async () => {
    const health = await fetch(`${receiver.url}/healthz`);
    expect(health.status).toBe(200);
    const metrics = await (await fetch(`${receiver.url}/metrics`)).text();
    const count = (outcome: string) =>
      Number(new RegExp(`rampflow_webhook_requests_total\\{outcome="${outcome}"\\} (\\d+)`).exec(metrics)?.[1]);
    // The tests above ran against this receiver (the 403 and 503 ones used receivers of their own).
    expect(count('accepted')).toBeGreaterThanOrEqual(1);
    expect(count('duplicate')).toBe(2);
    expect(count('ignored')).toBe(2);
    expect(count('over_budget')).toBe(0);
    expect(count('not_found')).toBe(6);
    expect(count('invalid')).toBe(8);
    expect(count('unsupported_media_type')).toBe(4);
    expect(count('too_large')).toBe(1);
    expect(count('unavailable')).toBe(0);
    expect(metrics).toMatch(/rampflow_webhook_handoff_seconds_count\{result="started"\} \d+/);
    expect(metrics).not.toContain(TEST_TOKEN);
  });
});
