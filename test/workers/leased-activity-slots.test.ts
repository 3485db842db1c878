import { describe, expect, it } from 'vitest';
import { LeasedActivitySlots } from '../../workers/leased-activity-slots';

const context = {} as never;
const settled = async <T>(promise: Promise<T>): Promise<'pending' | 'resolved' | 'rejected'> => {
  const state = await Promise.race([
    promise.then(
      () => 'resolved' as const,
      () => 'rejected' as const,
    ),
    new Promise<'pending'>((resolve) => setImmediate(() => resolve('pending'))),
  ]);
  return state;
};

describe("the service worker's activity slots, sized to its share", () => {
  it('hold one until a share is given, then as many as the share, and a reservation past them waits for a release', async () => {
    const slots = new LeasedActivitySlots();
    const never = new AbortController().signal;
    await slots.reserveSlot(context, never);
    expect(slots.tryReserveSlot()).toBeNull();
    const waiting = slots.reserveSlot(context, never);
    expect(await settled(waiting)).toBe('pending');
    slots.resize(3);
    expect(await settled(waiting)).toBe('resolved');
    expect(slots.tryReserveSlot()).not.toBeNull();
    expect(slots.held).toBe(3);
    const fourth = slots.reserveSlot(context, never);
    expect(await settled(fourth)).toBe('pending');
    slots.releaseSlot({} as never);
    expect(await settled(fourth)).toBe('resolved');
  });

  it('take back nothing held when the share shrinks: new reservations wait until enough are released', async () => {
    const slots = new LeasedActivitySlots();
    slots.resize(3);
    const never = new AbortController().signal;
    for (let index = 0; index < 3; index += 1) await slots.reserveSlot(context, never);
    slots.resize(1);
    expect(slots.held).toBe(3);
    const waiting = slots.reserveSlot(context, never);
    slots.releaseSlot({} as never);
    slots.releaseSlot({} as never);
    expect(await settled(waiting)).toBe('pending');
    slots.releaseSlot({} as never);
    expect(await settled(waiting)).toBe('resolved');
  });

  it("reject a waiting reservation the worker aborts, with the signal's reason, and hold nothing for it", async () => {
    const slots = new LeasedActivitySlots();
    const never = new AbortController().signal;
    await slots.reserveSlot(context, never);
    const abort = new AbortController();
    const waiting = slots.reserveSlot(context, abort.signal);
    abort.abort();
    await expect(waiting).rejects.toBe(abort.signal.reason);
    slots.releaseSlot({} as never);
    expect(slots.held).toBe(0);
  });
});
