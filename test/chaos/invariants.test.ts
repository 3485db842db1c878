import { describe, expect, it } from 'vitest';
import {
  cancelledJourneysEmpty,
  deliveredInOrder,
  eventsGenuine,
  missedWhileGone,
  refundsReported,
  returnedJourneyCountsAnew,
  storeDelivered,
  type ServiceDeposit,
} from '../../chaos/invariants';
import type { StoredPartnerEvent } from '../../chaos/partner-api';
import type { CustomerPlan } from '../../chaos/schedule';
import type { JourneyState } from '../../workflows/common/messages';
import type { PartnerEvent } from '../../partner-events/catalogue';
import type { ReceivedDelivery } from '../../test/support/partner-endpoint';

const event = (
  sequence: number,
  type: PartnerEvent['type'],
  data: Record<string, unknown> = {},
  externalId = 'chaos-9-0',
): PartnerEvent =>
  ({
    id: `evt_${externalId.replace(/\W/g, '')}${String(sequence).padStart(16, '0')}`,
    type,
    timestamp: '2026-01-01T00:00:00.000Z',
    sequence,
    externalId,
    data,
  }) as PartnerEvent;
const stored = (events: PartnerEvent[]): StoredPartnerEvent[] =>
  events.map((each, index) => ({ ...each, cursor: String(index + 1) }));
const delivered = (events: PartnerEvent[]): ReceivedDelivery[] =>
  events.map((each) => ({ webhookId: each.id, event: each }));
const deposit = (id: string, overrides: Partial<ServiceDeposit> = {}): ServiceDeposit => ({
  id,
  customerId: 'c1',
  status: 'CONFIRMED',
  currency: 'USD',
  amount: '100',
  completed: true,
  refundedAfterCompleting: false,
  ...overrides,
});

describe("the chaos run's event checks", () => {
  const stream = [
    event(1, 'journey.kyc_required', { kycLink: 'https://service/kyc/c1' }),
    event(2, 'journey.approved'),
    event(3, 'deposit.received', { depositId: 'd1', kind: 'ONRAMP', amount: '100', currency: 'USD' }),
  ];

  it('holds the store to the endpoint both ways: the tail arrived, and nothing arrived the store lacks', () => {
    expect(
      storeDelivered({ storedBefore: stored(stream), delivered: delivered(stream), storedAfter: stored(stream) }),
    ).toEqual([]);
    // Recorded after the endpoint was copied: not yet owed to it, but what the endpoint got must be stored by then.
    expect(
      storeDelivered({
        storedBefore: stored(stream.slice(0, 2)),
        delivered: delivered(stream),
        storedAfter: stored(stream),
      }),
    ).toEqual([]);
    const tailLost = storeDelivered({
      storedBefore: stored(stream),
      delivered: delivered(stream.slice(0, 2)),
      storedAfter: stored(stream),
    });
    expect(tailLost).toEqual([expect.stringContaining('the endpoint never got #3 deposit.received')]);
    const notStored = storeDelivered({
      storedBefore: stored(stream.slice(0, 2)),
      delivered: delivered(stream),
      storedAfter: stored(stream.slice(0, 2)),
    });
    expect(notStored).toEqual([expect.stringContaining('the endpoint got #3 deposit.received')]);
    const gap = storeDelivered({
      storedBefore: stored([stream[0]!, stream[2]!]),
      delivered: delivered([stream[0]!, stream[2]!]),
      storedAfter: stored([stream[0]!, stream[2]!]),
    });
    expect(gap).toEqual([expect.stringContaining('a gap or repeat at position 2')]);
  });

  it('excuses only what the endpoint missed while a 410 Gone disabled it, which the partner reads through GET /events', () => {
    const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds)).toISOString();
    const events = [1, 2, 3, 4, 5].map((sequence) => ({
      ...event(sequence, 'journey.approved'),
      timestamp: at(sequence * 10),
    }));
    // #1 accepted before the endpoint answered 410 at 25 s; #2 (in flight) and #3 (recorded at 30 s) never pushed; enabled at 35 s.
    const window = { from: Date.parse(at(25)), acceptedBefore: 1, enabledAt: Date.parse(at(35)) };
    const accepted = delivered([events[0]!, events[3]!, events[4]!]);
    expect(missedWhileGone(stored(events), accepted, [window]).map((each) => each.sequence)).toEqual([2, 3]);
    // No 410: nothing is excused.
    expect(missedWhileGone(stored(events), accepted, [])).toEqual([]);
    // Recorded after the operator enabled it again (#4 at 40 s): owed to the endpoint.
    const lostAfter = delivered([events[0]!, events[4]!]);
    expect(missedWhileGone(stored(events), lostAfter, [window]).map((each) => each.sequence)).toEqual([2, 3]);
    const reading = { storedBefore: stored(events), delivered: lostAfter, storedAfter: stored(events) };
    const excused = new Set(missedWhileGone(stored(events), lostAfter, [window]).map((each) => each.id));
    expect(storeDelivered(reading, excused)).toEqual([
      expect.stringContaining('the endpoint never got #4 journey.approved'),
    ]);
    expect(storeDelivered({ ...reading, delivered: accepted }, excused)).toEqual([]);
    // An event before the last one the endpoint had accepted when the 410 began was owed before it: never excused.
    expect(
      missedWhileGone(stored(events), delivered([events[1]!, events[4]!]), [window]).map((each) => each.sequence),
    ).toEqual([3]);
  });

  it('takes a later run pushing what the partner read after a 410 as repeats, and holds the rest to their order (seed 2)', () => {
    const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds)).toISOString();
    const events = [1, 2, 3, 4, 5].map((sequence) => ({
      ...event(sequence, 'journey.approved'),
      timestamp: at(sequence * 10),
    }));
    // 410 from 5 s to 35 s: #1 to #3 recorded meanwhile, not pushed; #4 and #5 pushed after; then the
    // customer signed up again, and its new journey pushed the stream's earlier events, #1 to #3 among them.
    const window = {
      from: Date.parse(at(5)),
      acceptedBefore: 0,
      enabledAt: Date.parse(at(35)),
      acceptedBeforeEnabled: 0,
    };
    const accepted = delivered([events[3]!, events[4]!, events[0]!, events[1]!, events[2]!]);
    const pulled = missedWhileGone(stored(events), accepted, [window]);
    expect(pulled.map((each) => each.sequence)).toEqual([1, 2, 3]);
    expect(deliveredInOrder(accepted, pulled)).toEqual([]);
    // Not told of the enable (as before): what arrived later counts as never missed, and the order breaks.
    const { acceptedBeforeEnabled: _, ...unknownEnable } = window;
    const pulledUnknown = missedWhileGone(stored(events), accepted, [unknownEnable]);
    expect(deliveredInOrder(accepted, pulledUnknown)).toEqual([
      expect.stringContaining('delivered #4 (expected #1 at position 1)'),
    ]);
    // Without a 410, the same arrivals are out of order.
    expect(deliveredInOrder(accepted, [])).toEqual([expect.stringContaining('expected #1 at position 1')]);
    // What the partner read does not excuse a delivery out of order among the rest.
    expect(deliveredInOrder(delivered([events[4]!, events[3]!]), pulled)).toEqual([
      expect.stringContaining('delivered #5 (expected #4 at position 1)'),
    ]);
  });

  it('wants one deposit.reversed for a deposit refunded after it completed, and none for one not refunded', () => {
    const reversed = event(4, 'deposit.reversed', {
      depositId: 'd1',
      kind: 'ONRAMP',
      amount: '100',
      currency: 'USD',
      after: 'COMPLETED',
    });
    const refunded = deposit('d1', { status: 'REJECTED', completed: false, refundedAfterCompleting: true });
    expect(refundsReported(delivered([...stream, reversed]), [refunded])).toEqual([]);
    expect(refundsReported(delivered(stream), [refunded])).toEqual([
      'deposit d1 (refunded after it completed): 0 deposit.reversed event ids',
    ]);
    expect(refundsReported(delivered([...stream, reversed]), [deposit('d1')])).toEqual([
      'deposit d1 (CONFIRMED at the service, not refunded): 1 deposit.reversed event ids',
    ]);
    expect(refundsReported(delivered([...stream, reversed]), [])).toEqual([
      'deposit.reversed for d1, which the service does not have',
    ]);
  });

  it('refuses an event naming an id only the forger sent, or a record the service does not have', () => {
    const serviceIds = new Set(['c1', 'd1']);
    expect(eventsGenuine(delivered(stream), serviceIds, [], new Set(['forged-1', 'd1']))).toEqual([]);
    const believed = event(4, 'deposit.received', {
      depositId: 'forged-1',
      kind: 'ONRAMP',
      amount: '1',
      currency: 'USD',
    });
    expect(eventsGenuine(delivered([...stream, believed]), serviceIds, [], new Set(['forged-1']))).toEqual([
      expect.stringContaining('depositId forged-1, which the service does not have'),
      expect.stringContaining('names forged-1, an id only the forger sent'),
    ]);
    const accounts = event(4, 'journey.accounts_ready', { virtualAccount: { id: 'va-1' } });
    expect(eventsGenuine(delivered([...stream, accounts]), serviceIds, ['va-1'], new Set(['va-1']))).toEqual([]);
    expect(eventsGenuine(delivered([...stream, accounts]), serviceIds, [], new Set(['va-1']))).toEqual([
      expect.stringContaining('names va-1'),
    ]);
  });

  it('holds a journey the operator cancelled to CLOSED, nothing counted and no customer at the service', () => {
    const cancelled = (stage: string, completedTotals: Record<string, string> = {}) => ({
      plan: { externalId: 'chaos-9-1' } as CustomerPlan,
      lastState: { stage, deposits: { completedTotals } } as unknown as JourneyState,
    });
    expect(cancelledJourneysEmpty([cancelled('CLOSED')], new Set(['chaos-9-0']))).toEqual([]);
    expect(cancelledJourneysEmpty([cancelled('NEEDS_ATTENTION', { USD: '0' })], new Set())).toEqual([
      'chaos-9-1: cancelled by the operator, its journey NEEDS_ATTENTION',
    ]);
    expect(cancelledJourneysEmpty([cancelled('CLOSED', { USD: '100' })], new Set(['chaos-9-1']))).toEqual([
      'chaos-9-1: cancelled, its journey counts 100 USD',
      'chaos-9-1: cancelled before its customer was created, yet the service has one',
    ]);
  });

  it("breaks when a journey started again after retention counts its customer's earlier deposits", () => {
    const returned = (signups: number, completedTotals: Record<string, string>) => ({
      plan: { externalId: 'chaos-9-2' } as CustomerPlan,
      signups,
      lastState: { stage: 'ACTIVE', deposits: { completedTotals } } as unknown as JourneyState,
    });
    expect(returnedJourneyCountsAnew(returned(2, {}))).toEqual([]);
    expect(returnedJourneyCountsAnew(returned(2, { USD: '0' }))).toEqual([]);
    // Not back yet: its first journey's totals are the first row's (it is not at rest).
    expect(returnedJourneyCountsAnew(returned(1, { USD: '100' }))).toEqual([]);
    expect(returnedJourneyCountsAnew(returned(2, { USD: '100', USDT: '0' }))).toEqual([
      'chaos-9-2: signed up again after its journey was removed, and the new journey counts 100 USD completed, all of it paid in before',
    ]);
  });
});
