/**
 * The webhook delivery faults (POST /sandbox/delivery-faults) and the sped-up retry policy, with time
 * driven by the frozen virtual clock: a lost attempt never reaches the receiver and is retried on the
 * policy; a delivery whose every attempt is lost is lost for good; a held-back delivery lands ticks
 * late, behind events that happened after it; an event lost for good is lost at every attempt the
 * scheduler makes, even after the fault is lifted; the switches are the calling partner's only.
 */
import { describe, expect, it } from 'vitest';
import { LOST_ATTEMPT_ERROR, LOST_FOR_GOOD_ATTEMPT_ERROR } from '../../sandbox/events/deliveries';
import { approvedCustomer, START_TIME, startReceiver, startSandbox, subscribe } from './support/sandbox-fixture';

/** The interface's waits (10 min, 1 h, 1 day, 1 week) sixty times faster. */
const SPEEDUP = 60;
const at = (seconds: number): string => new Date(START_TIME.getTime() + seconds * 1000).toISOString();

interface Attempt {
  time: string;
  outcome: string;
  error: string | null;
}

/** A sandbox whose loss switch takes `draws` in turn (0 once they run out), its receiver subscribed to CUSTOMER_APPROVED. */
async function sandboxDrawing(draws: number[]) {
  const { a } = await startSandbox({
    deliveryTickSeconds: 1,
    deliveryRetrySpeedup: SPEEDUP,
    deliveryLossRandom: () => draws.shift() ?? 0,
  });
  const receiver = await startReceiver();
  await subscribe(a, receiver, ['CUSTOMER_APPROVED']);
  return { a, receiver };
}

describe('webhook deliveries lost on the way', () => {
  it('retries a lost attempt on the sped-up policy and delivers it once the loss is lifted', async () => {
    const { a } = await startSandbox({ deliveryTickSeconds: 1, deliveryRetrySpeedup: SPEEDUP });
    const receiver = await startReceiver();
    await subscribe(a, receiver, ['CUSTOMER_APPROVED']);
    expect(await a.ok('POST', '/sandbox/delivery-faults', { lostShare: 1 })).toEqual({
      lostShare: 1,
      lostForGoodShare: 0,
      delaySeconds: 0,
    });
    await approvedCustomer(a);
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 1 });
    expect(receiver.received).toHaveLength(0);
    expect(await a.ok('POST', '/sandbox/delivery-faults', {})).toEqual({
      lostShare: 0,
      lostForGoodShare: 0,
      delaySeconds: 0,
    });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 9 });
    expect(receiver.received).toHaveLength(0);
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 1 });
    expect(receiver.events()).toEqual(['CUSTOMER_APPROVED']);
    const [log] = await a.ok('GET', '/sandbox/deliveries');
    expect(log.status).toBe('DELIVERED');
    expect(log.attempts.map(({ time, outcome, error }: Attempt) => ({ time, outcome, error }))).toEqual([
      { time: at(1), outcome: 'FAILED', error: LOST_ATTEMPT_ERROR },
      { time: at(11), outcome: 'DELIVERED', error: null },
    ]);
  });

  it('loses a delivery for good when every attempt of the policy is lost', async () => {
    const { a } = await startSandbox({ deliveryTickSeconds: 1, deliveryRetrySpeedup: SPEEDUP });
    const receiver = await startReceiver();
    await subscribe(a, receiver, ['CUSTOMER_APPROVED']);
    await a.ok('POST', '/sandbox/delivery-faults', { lostShare: 1 });
    await approvedCustomer(a);
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 30 * 24 * 60 * 60 });
    const [log] = await a.ok('GET', '/sandbox/deliveries');
    expect(log.status).toBe('FAILED');
    expect(log.nextAttemptTime).toBeNull();
    // 10 s, 60 s, 24 min and 168 min apart: the policy's waits sixty times faster.
    expect(log.attempts.map((attempt: Attempt) => attempt.time)).toEqual([
      at(1),
      at(11),
      at(71),
      at(71 + 1_440),
      at(71 + 1_440 + 10_080),
    ]);
    expect(log.attempts.every((attempt: Attempt) => attempt.error === LOST_ATTEMPT_ERROR)).toBe(true);
    expect(receiver.received).toHaveLength(0);
  });

  it('loses an event lost for good at every attempt, after the fault is lifted too, and only the events drawn', async () => {
    // The first event draws 0.2 (below the share: lost for good), the second 0.9 (not).
    const draws = [0.2, 0.9];
    const { a, receiver } = await sandboxDrawing(draws);
    expect(await a.ok('POST', '/sandbox/delivery-faults', { lostForGoodShare: 0.5 })).toEqual({
      lostShare: 0,
      lostForGoodShare: 0.5,
      delaySeconds: 0,
    });
    const lost = await approvedCustomer(a, 'lost');
    await approvedCustomer(a, 'delivered');
    // Lifted before the first attempt: what decides is the fault when the event happened.
    await a.ok('POST', '/sandbox/delivery-faults', {});
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 30 * 24 * 60 * 60 });
    expect(receiver.received).toHaveLength(1);
    const logs: { status: string; payload: { id: string }; attempts: Attempt[] }[] = await a.ok(
      'GET',
      '/sandbox/deliveries',
    );
    const lostLog = logs.find((log) => log.payload.id === lost)!;
    expect(lostLog.status).toBe('FAILED');
    expect(lostLog.attempts).toHaveLength(5);
    expect(lostLog.attempts.every((attempt) => attempt.error === LOST_FOR_GOOD_ATTEMPT_ERROR)).toBe(true);
    expect(logs.filter((log) => log.status === 'DELIVERED')).toHaveLength(1);
    expect(draws).toEqual([]);
  });

  it('loses only the share of attempts the draws put below it', async () => {
    const draws = [0.2, 0.7, 0.9];
    const { a, receiver } = await sandboxDrawing(draws);
    await a.ok('POST', '/sandbox/delivery-faults', { lostShare: 0.5 });
    await approvedCustomer(a, 'first');
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 1 });
    await approvedCustomer(a, 'second');
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 60 });
    // The first's first attempt drew 0.2 (lost), its retry 0.9; the second's drew 0.7 (sent).
    expect(receiver.received).toHaveLength(2);
    const logs = await a.ok('GET', '/sandbox/deliveries');
    expect(logs.map((log: { attempts: Attempt[] }) => log.attempts.map((attempt) => attempt.outcome))).toEqual([
      ['FAILED', 'DELIVERED'],
      ['DELIVERED'],
    ]);
  });

  it("is the calling partner's only, and refuses a share outside 0 to 1", async () => {
    const { a, b } = await startSandbox();
    const receiverA = await startReceiver();
    const receiverB = await startReceiver();
    await subscribe(a, receiverA, ['CUSTOMER_APPROVED']);
    await subscribe(b, receiverB, ['CUSTOMER_APPROVED']);
    await a.ok('POST', '/sandbox/delivery-faults', { lostShare: 1 });
    await approvedCustomer(a);
    await approvedCustomer(b);
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 60 });
    expect(receiverA.received).toHaveLength(0);
    expect(receiverB.received).toHaveLength(1);
    expect((await a.post('/sandbox/delivery-faults', { lostShare: 1.5 })).json.status).toBe('INVALID_PARAMETERS');
    expect((await a.post('/sandbox/delivery-faults', { delaySeconds: -1 })).json.status).toBe('INVALID_PARAMETERS');
    expect((await a.post('/sandbox/delivery-faults', { lostForGoodShare: 2 })).json.status).toBe('INVALID_PARAMETERS');
  });
});

describe('webhook deliveries held back', () => {
  it('sends an event that happened while deliveries were held back ticks late, behind a later one', async () => {
    const { a } = await startSandbox({ deliveryTickSeconds: 1 });
    const receiver = await startReceiver();
    await subscribe(a, receiver, ['CUSTOMER_APPROVED', 'CUSTOMER_DELETED']);
    await a.ok('POST', '/sandbox/delivery-faults', { delaySeconds: 5 });
    const customer = await approvedCustomer(a);
    await a.ok('POST', '/sandbox/delivery-faults', { delaySeconds: 0 });
    await a.ok('POST', '/sandbox/customer/delete', { id: customer });
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 1 });
    expect(receiver.events()).toEqual(['CUSTOMER_DELETED']);
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 4 });
    expect(receiver.events()).toEqual(['CUSTOMER_DELETED']);
    await a.ok('POST', '/sandbox/clock/advance', { seconds: 1 });
    expect(receiver.events()).toEqual(['CUSTOMER_DELETED', 'CUSTOMER_APPROVED']);
    const [approved] = await a.ok('GET', '/sandbox/deliveries?event=CUSTOMER_APPROVED');
    expect(approved.attempts.map((attempt: Attempt) => attempt.time)).toEqual([at(6)]);
  });
});

describe('the retry policy, sped up', () => {
  it('refuses a speed-up below 1', async () => {
    await expect(startSandbox({ deliveryRetrySpeedup: 0.5 })).rejects.toThrow('deliveryRetrySpeedup');
  });
});
