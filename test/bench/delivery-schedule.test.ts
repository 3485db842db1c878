/**
 * The burst's deposit floor receives its webhooks as the sandbox delivers them
 * (bench/burst/delivery-schedule.ts): each deposit's events due one and two autopilot steps after it
 * was paid, each at the first delivery tick after it falls due, in the order they happened.
 */
import { describe, expect, it } from 'vitest';
import { sandboxDeliverySchedule } from '../../bench/burst/delivery-schedule';

const timing = { stepMs: 200, tickMs: 1_000 };

describe("the sandbox's delivery schedule of a burst", () => {
  it('delivers a deposit paid at once at the next tick, all four events in the order they happened', () => {
    expect(sandboxDeliverySchedule([0], timing)).toEqual([
      {
        atMs: 1_000,
        deliveries: [
          { deposit: 0, event: 'DEPOSIT_RECEIVED' },
          { deposit: 0, event: 'DEPOSIT_APPROVED' },
          { deposit: 0, event: 'TRADE_CREATED' },
          { deposit: 0, event: 'TRADE_SETTLED' },
        ],
      },
    ]);
  });

  it('puts an event that falls due after a tick into the next, and interleaves deposits by when their events happened', () => {
    const schedule = sandboxDeliverySchedule([700, 850], timing);
    expect(schedule.map((tick) => tick.atMs)).toEqual([1_000, 2_000]);
    expect(schedule[0]!.deliveries).toEqual([
      { deposit: 0, event: 'DEPOSIT_RECEIVED' },
      { deposit: 1, event: 'DEPOSIT_RECEIVED' },
      { deposit: 0, event: 'DEPOSIT_APPROVED' },
      { deposit: 0, event: 'TRADE_CREATED' },
    ]);
    expect(schedule[1]!.deliveries).toEqual([
      { deposit: 1, event: 'DEPOSIT_APPROVED' },
      { deposit: 1, event: 'TRADE_CREATED' },
      { deposit: 0, event: 'TRADE_SETTLED' },
      { deposit: 1, event: 'TRADE_SETTLED' },
    ]);
  });

  it('waits for the next tick when an event falls due at a tick’s instant', () => {
    expect(sandboxDeliverySchedule([800], timing).map((tick) => tick.atMs)).toEqual([1_000, 2_000]);
  });
});
