/**
 * Bounded waits back off (issue 17): a journey waiting for a KYC decision that never comes polls
 * after the poll interval, then after twice the pause before, up to the cap; so an abandoned signup
 * costs a few dozen polls over its 30 days instead of one every interval.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { temporal } from '@temporalio/proto';
import { SandboxRequestLog } from '../../bench/support/sandbox-request-log';
import { startJourneyHarness, type JourneyHarness } from '../support/journey-harness';

const requestLog = new SandboxRequestLog();
let h: JourneyHarness;
beforeAll(async () => {
  h = await startJourneyHarness({ logger: requestLog.logger });
});
afterAll(async () => {
  await h?.close();
});

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const seconds = (duration: temporal.api.history.v1.ITimerStartedEventAttributes['startToFireTimeout']): number =>
  Number(duration?.seconds ?? 0) + (duration?.nanos ?? 0) / 1e9;

const activityTypeOf = (events: HistoryEvent[], scheduledEventId: unknown): string | undefined =>
  events.find((event) => String(event.eventId) === String(scheduledEventId))?.activityTaskScheduledEventAttributes
    ?.activityType?.name ?? undefined;

describe('a wait for the service', () => {
  it('polls after the interval, then doubles the pause up to the cap', async () => {
    const handle = await h.startJourney({
      timings: { pollIntervalSeconds: 1, pollBackoffCapSeconds: 4, kycDeadlineSeconds: 3600 },
    });
    await h.waitForJourney(handle, (s) => s.stage === 'AWAITING_KYC');
    // Polls due at 1, 3, 7, 11 and 15 s (every second without the backoff: 16 of them).
    await new Promise((wake) => setTimeout(wake, 16_500));
    const detailRequests = requestLog.byPath.get('/customer/detail') ?? 0;
    await handle.terminate('test over');

    const events = (await handle.fetchHistory()).events ?? [];
    const timers = events
      .filter((event) => event.timerStartedEventAttributes)
      .map((event) => seconds(event.timerStartedEventAttributes!.startToFireTimeout));
    const polls = events.filter(
      (event) =>
        event.activityTaskStartedEventAttributes &&
        activityTypeOf(events, event.activityTaskStartedEventAttributes.scheduledEventId) === 'getCustomer',
    );
    // A slow machine fires timers late, never early: it may see fewer polls, never other pauses.
    expect(timers.length).toBeGreaterThanOrEqual(4);
    expect(timers).toEqual([1, 2, 4, 4, 4, 4, 4].slice(0, timers.length));
    expect(polls.length).toBeGreaterThanOrEqual(timers.length - 1);
    expect(polls.length).toBeLessThanOrEqual(5);
    // The service saw those polls and, before them, at most the two reads of creating the customer.
    expect(detailRequests).toBeGreaterThanOrEqual(polls.length);
    expect(detailRequests).toBeLessThanOrEqual(polls.length + 2);
  }, 60_000);
});
