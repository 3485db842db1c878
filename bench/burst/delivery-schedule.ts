/**
 * When the sandbox would deliver a burst's webhooks (sandbox/events/deliveries.ts, sandbox/autopilot.ts),
 * so the deposit floor receives them as rampflow's receiver did: each deposit's four events fall due
 * when it is paid (`DEPOSIT_RECEIVED`), one autopilot step later (`DEPOSIT_APPROVED`, and the trade it
 * creates, `TRADE_CREATED`) and two steps later (`TRADE_SETTLED`); each goes out at the first delivery
 * tick after it falls due, and one customer's deliveries go out one after another, in the order the
 * events happened.
 */
import { depositWebhooks } from '../floor/messages';

export interface ScheduledDelivery {
  /** The deposit's position in the burst. */
  deposit: number;
  event: string;
}

export interface DeliveryTick {
  /** Since the first deposit was paid. */
  atMs: number;
  /** In order: one after another. */
  deliveries: ScheduledDelivery[];
}

/** How many autopilot steps after its deposit was paid each onramp event happens. */
const STEPS_AFTER_PAYMENT: Record<string, number> = {
  DEPOSIT_RECEIVED: 0,
  DEPOSIT_APPROVED: 1,
  TRADE_CREATED: 1,
  TRADE_SETTLED: 2,
};

/** @param paidAtMs when each deposit was paid, since the first */
export function sandboxDeliverySchedule(
  paidAtMs: readonly number[],
  timing: { stepMs: number; tickMs: number },
): DeliveryTick[] {
  const events = paidAtMs.flatMap((paidAt, deposit) =>
    depositWebhooks('ONRAMP').map((event, order) => ({
      deposit,
      event,
      order,
      happenedAt: paidAt + STEPS_AFTER_PAYMENT[event]! * timing.stepMs,
    })),
  );
  events.sort((a, b) => a.happenedAt - b.happenedAt || a.deposit - b.deposit || a.order - b.order);
  const ticks = new Map<number, DeliveryTick>();
  for (const { deposit, event, happenedAt } of events) {
    // The first tick after the event (the sandbox's tickAfter): an event at a tick's instant waits for the next.
    const atMs = (Math.floor(happenedAt / timing.tickMs) + 1) * timing.tickMs;
    (ticks.get(atMs) ?? ticks.set(atMs, { atMs, deliveries: [] }).get(atMs)!).deliveries.push({ deposit, event });
  }
  return [...ticks.values()].sort((a, b) => a.atMs - b.atMs);
}
