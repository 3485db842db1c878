/**
 * Event registration and delivery through HTTP, with time driven by the virtual clock: the envelope,
 * subscription filtering and old names, the retry schedule minute by minute, what counts as an
 * acknowledgement, the delivery log, resend, and the duplicate and out-of-order switches.
 */
import { describe, expect, it } from 'vitest';
import { parseRampEvent } from '../../ramp/schemas';
import { START_TIME, startReceiver, startSandbox, subscribe } from './support/sandbox-fixture';

const MINUTE = 60;

describe('callback URL and subscriptions', () => {
  it('accepts https URLs and plain http on loopback only', async () => {
    const { a } = await startSandbox();
    expect(await a.ok('POST', '/callback-url', { callbackUrl: 'https://partner.example/hooks' })).toEqual({
      callbackUrl: 'https://partner.example/hooks',
    });
    expect((await a.ok('POST', '/callback-url', { callbackUrl: 'http://127.0.0.1:9000/hooks' })).callbackUrl).toBe(
      'http://127.0.0.1:9000/hooks',
    );
    expect((await a.ok('POST', '/callback-url', { callbackUrl: 'http://localhost:9000/hooks' })).callbackUrl).toBe(
      'http://localhost:9000/hooks',
    );
    const plain = await a.post('/callback-url', { callbackUrl: 'http://partner.example/hooks' });
    expect(plain.status).toBe(422);
    expect(plain.json.status).toBe('INVALID_PARAMETERS');
    expect((await a.post('/callback-url', { callbackUrl: 'not a url' })).json.status).toBe('INVALID_PARAMETERS');
  });

  it('accepts plain http to a host it was told to trust (a receiver on a private network), and to no other', async () => {
    const { a } = await startSandbox({ httpCallbackHosts: ['webhooks'] });
    expect((await a.ok('POST', '/callback-url', { callbackUrl: 'http://webhooks:8788/hooks' })).callbackUrl).toBe(
      'http://webhooks:8788/hooks',
    );
    expect((await a.post('/callback-url', { callbackUrl: 'http://partner.example/hooks' })).json.status).toBe(
      'INVALID_PARAMETERS',
    );
  });

  it('accepts new and old event names, rejects unknown ones, and reads the subscription back', async () => {
    const { a } = await startSandbox();
    const answer = await a.ok('POST', '/subscribed-events', { events: ['CUSTOMER_APPROVED', 'va.approved'] });
    expect(typeof answer.message).toBe('string');
    expect(await a.ok('GET', '/subscribed-events')).toEqual({ events: ['CUSTOMER_APPROVED', 'va.approved'] });
    const unknown = await a.post('/subscribed-events', { events: ['CUSTOMER_EXPLODED'] });
    expect(unknown.json.status).toBe('INVALID_PARAMETERS');
  });
});

describe('delivery', () => {
  it('posts {event, payload} as JSON at the next scheduler run, payload in the detail schema', async () => {
    const { sandbox, a } = await startSandbox();
    const receiver = await startReceiver();
    await subscribe(a, receiver, ['CUSTOMER_APPROVED']);
    const customer = await a.ok('POST', '/customer/create', { externalId: 'u-1', realName: 'Ada' });
    await a.ok('POST', '/sandbox/customer/approve', { id: customer.id });
    expect(receiver.received).toHaveLength(0);
    await a.ok('POST', '/sandbox/clock/advance', { seconds: MINUTE });
    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received;
    expect(delivery?.contentType).toBe('application/json');
    expect(delivery?.path).toBe('/webhooks/ramp/test-token');
    expect(delivery?.body.event).toBe('CUSTOMER_APPROVED');
    expect(delivery?.body.payload).toEqual(await a.ok('GET', `/customer/detail?id=${customer.id}`));
    expect(parseRampEvent(delivery?.body).success).toBe(true);
    expect(sandbox.clock.now().toISOString()).toBe('2026-05-04T09:01:00.000Z');
  });

  it('delivers only subscribed events, under the name subscribed (old and new both when both are subscribed)', async () => {
    const { a } = await startSandbox();
    const receiver = await startReceiver();
    await subscribe(a, receiver, ['user.approved', 'CUSTOMER_APPROVED']);
    const approved = await a.ok('POST', '/customer/create', { externalId: 'approved' });
    await a.ok('POST', '/sandbox/customer/approve', { id: approved.id });
    const rejected = await a.ok('POST', '/customer/create', { externalId: 'rejected' });
    await a.ok('POST', '/sandbox/customer/reject', { id: rejected.id });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: MINUTE });
    expect(receiver.events().sort()).toEqual(['CUSTOMER_APPROVED', 'user.approved']);
    expect(receiver.received.every((delivery) => delivery.body.payload.id === approved.id)).toBe(true);
  });

  it('never delivers to another partner', async () => {
    const { a, b } = await startSandbox();
    const receiverA = await startReceiver();
    const receiverB = await startReceiver();
    await subscribe(a, receiverA, ['CUSTOMER_APPROVED']);
    await subscribe(b, receiverB, ['CUSTOMER_APPROVED']);
    const customer = await a.ok('POST', '/customer/create', {});
    await a.ok('POST', '/sandbox/customer/approve', { id: customer.id });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: MINUTE });
    expect(receiverA.received).toHaveLength(1);
    expect(receiverB.received).toHaveLength(0);
    expect(await b.ok('GET', '/sandbox/deliveries')).toEqual([]);
  });

  it('retries after 10 min, 1 h, 1 day and 1 week, five attempts in all, each at its minute, then fails for good', async () => {
    const { a } = await startSandbox();
    const receiver = await startReceiver();
    receiver.fallback = { status: 500 };
    await subscribe(a, receiver, ['CUSTOMER_APPROVED']);
    const customer = await a.ok('POST', '/customer/create', {});
    // The event happens 30 s after a whole minute; the scheduler picks it up at the next minute.
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 30 });
    await a.ok('POST', '/sandbox/customer/approve', { id: customer.id });

    const attemptsAfter = async (seconds: number): Promise<number> => {
      await a.ok('POST', '/sandbox/clock/advance', { seconds });
      return receiver.received.length;
    };
    expect(await attemptsAfter(29)).toBe(0);
    expect(await attemptsAfter(1)).toBe(1); // 09:01:00
    expect(await attemptsAfter(10 * MINUTE - 1)).toBe(1);
    expect(await attemptsAfter(1)).toBe(2); // 09:11:00
    expect(await attemptsAfter(60 * MINUTE - 1)).toBe(2);
    expect(await attemptsAfter(1)).toBe(3); // 10:11:00
    expect(await attemptsAfter(24 * 60 * MINUTE - 1)).toBe(3);
    expect(await attemptsAfter(1)).toBe(4); // next day 10:11:00
    expect(await attemptsAfter(7 * 24 * 60 * MINUTE - 1)).toBe(4);
    expect(await attemptsAfter(1)).toBe(5); // a week later
    expect(await attemptsAfter(30 * 24 * 60 * MINUTE)).toBe(5);

    const [log] = await a.ok('GET', '/sandbox/deliveries');
    expect(log.status).toBe('FAILED');
    expect(log.nextAttemptTime).toBeNull();
    expect(log.attempts.map((attempt: { time: string }) => attempt.time)).toEqual([
      '2026-05-04T09:01:00.000Z',
      '2026-05-04T09:11:00.000Z',
      '2026-05-04T10:11:00.000Z',
      '2026-05-05T10:11:00.000Z',
      '2026-05-12T10:11:00.000Z',
    ]);
    expect(
      log.attempts.every(
        (attempt: { outcome: string; httpStatus: number }) =>
          attempt.outcome === 'FAILED' && attempt.httpStatus === 500,
      ),
    ).toBe(true);
    expect(log.createTime).toBe(new Date(START_TIME.getTime() + 30_000).toISOString());
  });

  it('runs the whole schedule in one jump too, each attempt logged at its own minute', async () => {
    const { a } = await startSandbox();
    const receiver = await startReceiver();
    receiver.fallback = { status: 503 };
    await subscribe(a, receiver, ['CUSTOMER_REJECTED']);
    const customer = await a.ok('POST', '/customer/create', {});
    await a.ok('POST', '/sandbox/customer/reject', { id: customer.id });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 60 * 24 * 60 * MINUTE });
    const [log] = await a.ok('GET', '/sandbox/deliveries?event=CUSTOMER_REJECTED');
    expect(log.attempts.map((attempt: { time: string }) => attempt.time)).toEqual([
      '2026-05-04T09:01:00.000Z',
      '2026-05-04T09:11:00.000Z',
      '2026-05-04T10:11:00.000Z',
      '2026-05-05T10:11:00.000Z',
      '2026-05-12T10:11:00.000Z',
    ]);
    expect(receiver.received).toHaveLength(5);
  });

  it('stops retrying once a retry is acknowledged', async () => {
    const { a } = await startSandbox();
    const receiver = await startReceiver();
    receiver.script.push({ status: 500 });
    await subscribe(a, receiver, ['CUSTOMER_APPROVED']);
    const customer = await a.ok('POST', '/customer/create', {});
    await a.ok('POST', '/sandbox/customer/approve', { id: customer.id });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 30 * 24 * 60 * MINUTE });
    expect(receiver.received).toHaveLength(2);
    const [log] = await a.ok('GET', '/sandbox/deliveries?status=DELIVERED');
    expect(log.attempts.map((attempt: { outcome: string }) => attempt.outcome)).toEqual(['FAILED', 'DELIVERED']);
  });

  it('counts only HTTP 200: a 201, a 204 and a redirect are failures, and the redirect is not followed', async () => {
    const { a } = await startSandbox();
    const receiver = await startReceiver();
    const elsewhere = await startReceiver();
    receiver.script.push({ status: 201 }, { status: 204 }, { status: 307, headers: { location: elsewhere.url } });
    receiver.fallback = { status: 200 };
    await subscribe(a, receiver, ['CUSTOMER_APPROVED']);
    const customer = await a.ok('POST', '/customer/create', {});
    await a.ok('POST', '/sandbox/customer/approve', { id: customer.id });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 2 * 24 * 60 * MINUTE });
    const [log] = await a.ok('GET', '/sandbox/deliveries');
    expect(log.attempts.map((attempt: { httpStatus: number }) => attempt.httpStatus)).toEqual([201, 204, 307, 200]);
    expect(log.status).toBe('DELIVERED');
    expect(elsewhere.received).toHaveLength(0);
  });

  it('fails an attempt the receiver does not acknowledge within the timeout', async () => {
    const { a } = await startSandbox({ ackTimeoutMs: 200 });
    const receiver = await startReceiver();
    receiver.script.push({ status: 200, delayMs: 2_000 });
    await subscribe(a, receiver, ['CUSTOMER_APPROVED']);
    const customer = await a.ok('POST', '/customer/create', {});
    await a.ok('POST', '/sandbox/customer/approve', { id: customer.id });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: MINUTE });
    const [log] = await a.ok('GET', '/sandbox/deliveries');
    expect(log.attempts[0]).toMatchObject({ outcome: 'FAILED', httpStatus: null });
    expect(log.attempts[0].error).toMatch(/no acknowledgement within 200 ms/);
    expect(log.status).toBe('PENDING');
    expect(log.nextAttemptTime).toBe('2026-05-04T09:11:00.000Z');
  });

  it('treats a missing callback URL as a failed attempt and delivers on a retry once one is registered', async () => {
    const { a } = await startSandbox();
    const receiver = await startReceiver();
    await a.ok('POST', '/subscribed-events', { events: ['CUSTOMER_APPROVED'] });
    const customer = await a.ok('POST', '/customer/create', {});
    await a.ok('POST', '/sandbox/customer/approve', { id: customer.id });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: MINUTE });
    await a.ok('POST', '/callback-url', { callbackUrl: receiver.url });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 10 * MINUTE });
    const [log] = await a.ok('GET', '/sandbox/deliveries');
    expect(log.attempts.map((attempt: { error: string | null }) => attempt.error)).toEqual([
      'no callback URL registered',
      null,
    ]);
    expect(receiver.received).toHaveLength(1);
  });

  it('resends a delivery through the same path on request, without using up a scheduled attempt', async () => {
    const { a } = await startSandbox();
    const receiver = await startReceiver();
    await subscribe(a, receiver, ['CUSTOMER_APPROVED']);
    const customer = await a.ok('POST', '/customer/create', {});
    await a.ok('POST', '/sandbox/customer/approve', { id: customer.id });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: MINUTE });
    const [log] = await a.ok('GET', '/sandbox/deliveries');
    const resent = await a.ok('POST', '/sandbox/deliveries/resend', { id: log.id });
    expect(resent.attempts.map((attempt: { trigger: string }) => attempt.trigger)).toEqual(['SCHEDULED', 'RESEND']);
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]?.body).toEqual(receiver.received[0]?.body);
    const missing = await a.post('/sandbox/deliveries/resend', { id: 'no-such-delivery' });
    expect(missing.json).toEqual({ status: 'FAILED', message: 'delivery not found' });
  });

  it('with the duplicate switch, sends every delivered event twice', async () => {
    const { a } = await startSandbox({ duplicateDeliveries: true });
    const receiver = await startReceiver();
    await subscribe(a, receiver, ['CUSTOMER_APPROVED']);
    const customer = await a.ok('POST', '/customer/create', {});
    await a.ok('POST', '/sandbox/customer/approve', { id: customer.id });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: MINUTE });
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[0]?.body).toEqual(receiver.received[1]?.body);
  });

  it('in order by default; with the out-of-order switch, newest first within a scheduler run', async () => {
    for (const outOfOrder of [false, true]) {
      const { a } = await startSandbox({ outOfOrderDeliveries: outOfOrder });
      const receiver = await startReceiver();
      await subscribe(a, receiver, ['CUSTOMER_APPROVED', 'CUSTOMER_DELETED']);
      const customer = await a.ok('POST', '/customer/create', {});
      await a.ok('POST', '/sandbox/customer/approve', { id: customer.id });
      await a.ok('POST', '/sandbox/customer/delete', { id: customer.id });
      await a.ok('POST', '/sandbox/clock/advance', { seconds: MINUTE });
      expect(receiver.events()).toEqual(
        outOfOrder ? ['CUSTOMER_DELETED', 'CUSTOMER_APPROVED'] : ['CUSTOMER_APPROVED', 'CUSTOMER_DELETED'],
      );
    }
  });

  it('snapshots the payload when the event happens', async () => {
    const { a } = await startSandbox();
    const receiver = await startReceiver();
    await subscribe(a, receiver, ['CUSTOMER_APPROVED']);
    const customer = await a.ok('POST', '/customer/create', {});
    await a.ok('POST', '/sandbox/customer/approve', { id: customer.id });
    await a.ok('POST', '/sandbox/customer/delete', { id: customer.id });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: MINUTE });
    expect(receiver.received[0]?.body.payload.status).toBe('APPROVED');
  });
});
