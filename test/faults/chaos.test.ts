/**
 * The short chaos run (chaos/, `npm run chaos`): each seed of chaos/seeds.ts played against the whole
 * stack, every invariant row OK. Then the same run's evidence with one count tampered (a journey that
 * counted a deposit the service never completed, as a worker that counted a hint would) must break the
 * totals row and name the customer: the row can fail. So must the rows the run's own partner events
 * are checked by, each on its own tamper: the tail of a stream lost, an event naming a forged id, a
 * payout reported the other way; and the totals row on a journey that came back after retention and
 * counts what its customer paid in before.
 */
import { describe, expect, it } from 'vitest';
import { payoutReferenceOf } from '../../chaos/customers';
import {
  checkInvariants,
  GENUINE_ROW,
  PAYOUTS_ROW,
  STORE_ROW,
  TOTALS_ROW,
  type InvariantRow,
  type RunRecord,
} from '../../chaos/invariants';
import { playChaos, type ChaosResult } from '../../chaos/play';
import { describeSchedule } from '../../chaos/schedule';
import { SHORT_RUN, SHORT_RUN_SEEDS } from '../../chaos/seeds';
import { formatTable } from '../../chaos/table';

/** The journey of the first customer (always approved) shows one dollar more than it was paid. */
async function checkWithOneCountTampered(result: ChaosResult): Promise<InvariantRow[]> {
  const customers = result.record.customers.map((customer) => {
    if (customer !== result.record.customers[0] || !customer.lastState) return customer;
    const { deposits } = customer.lastState;
    const usd = Number(deposits.completedTotals.USD ?? '0') + 1;
    return {
      ...customer,
      lastState: {
        ...customer.lastState,
        deposits: { ...deposits, completedTotals: { ...deposits.completedTotals, USD: usd.toFixed(2) } },
      },
    };
  });
  return checkInvariants({ ...result.record, customers });
}

type Tamper = (record: RunRecord) => RunRecord | undefined;
type Delivery = RunRecord['eventStore']['delivered'][number];
const lastIndexOf = (deliveries: readonly Delivery[], match: (delivery: Delivery) => boolean): number => {
  for (let index = deliveries.length - 1; index >= 0; index -= 1) if (match(deliveries[index]!)) return index;
  return -1;
};
const withDelivered = (record: RunRecord, delivered: RunRecord['eventStore']['delivered']): RunRecord => ({
  ...record,
  eventStore: { ...record.eventStore, delivered },
});

/**
 * The endpoint never got the last event of a customer's stream (the tail did not arrive): the first
 * stream that ends with a journey event, so that only the stream row can notice (a lost
 * `deposit.reversed` or `deposit.completed` breaks the deposit rows too, rightly).
 */
const tailLost: Tamper = (record) => {
  for (const customer of record.customers) {
    const stream = customer.plan.externalId;
    const last = lastIndexOf(record.eventStore.delivered, ({ event }) => event.externalId === stream);
    if (last < 0 || !record.eventStore.delivered[last]!.event.type.startsWith('journey.')) continue;
    const { id } = record.eventStore.delivered[last]!.event;
    return withDelivered(
      record,
      record.eventStore.delivered.filter(({ event }) => event.id !== id),
    );
  }
  return undefined;
};

/** A delivered deposit.received names a deposit only the forger sent (as if a worker believed a forgery). */
const forgedIdReported: Tamper = (record) => {
  const forged = [...record.forger.forgedIds].find(
    (id) =>
      !record.customers.some((customer) =>
        [customer.customerId, customer.onrampDepositId, customer.offrampDepositId].includes(id),
      ),
  );
  const index = record.eventStore.delivered.findIndex(({ event }) => event.type === 'deposit.received');
  if (!forged || index < 0) return undefined;
  const delivered = record.eventStore.delivered.map((delivery, at) =>
    at === index
      ? {
          ...delivery,
          event: { ...delivery.event, data: { ...delivery.event.data, depositId: forged } } as typeof delivery.event,
        }
      : delivery,
  );
  return withDelivered(record, delivered);
};

/**
 * The last event of the first payout the endpoint heard the end of says the opposite of what the
 * service did with its payment. (A payout's end may have reached the partner only through `GET
 * /events`, while a 410 had its endpoint disabled: the next payout's then.)
 */
const payoutMisreported: Tamper = (record) => {
  const lastOf = (reference: string) =>
    lastIndexOf(
      record.eventStore.delivered,
      ({ event }) => event.payoutReference === reference && event.type.startsWith('payout.'),
    );
  const last = record.customers
    .filter((customer) => customer.payoutStarted)
    .map((customer) => lastOf(payoutReferenceOf(customer.plan)))
    .find((index) => index >= 0);
  if (last === undefined) return undefined;
  const delivered = record.eventStore.delivered.map((delivery, at) =>
    at === last
      ? {
          ...delivery,
          event: {
            ...delivery.event,
            type: delivery.event.type === 'payout.settled' ? 'payout.failed' : 'payout.settled',
          } as typeof delivery.event,
        }
      : delivery,
  );
  return withDelivered(record, delivered);
};

/**
 * The customer that came back after retention: its new journey counts 50 USD, as if a report of its
 * earlier life (a late one, a repair) had reached the new journey.
 */
const returnedCountsEarlier: Tamper = (record) => {
  const returned = record.customers.find((customer) => customer.plan.closesAndReturns && customer.signups === 2);
  if (!returned?.lastState) return undefined;
  const { deposits } = returned.lastState;
  const lastState = { ...returned.lastState, deposits: { ...deposits, completedTotals: { USD: '50.00' } } };
  return {
    ...record,
    customers: record.customers.map((customer) => (customer === returned ? { ...customer, lastState } : customer)),
  };
};

const ROW_TAMPERS: [string, Tamper, string][] = [
  ['the tail of a stream lost', tailLost, STORE_ROW],
  ['an event naming a forged id', forgedIdReported, GENUINE_ROW],
  ['a payout reported the other way', payoutMisreported, PAYOUTS_ROW],
  ['a journey signed up again counting what was paid before', returnedCountsEarlier, TOTALS_ROW],
];

describe('the short chaos run', () => {
  for (const seed of SHORT_RUN_SEEDS) {
    it(
      `holds every invariant with seed ${seed}, and a tampered count breaks its row`,
      async () => {
        const lines: string[] = [];
        let tampered: InvariantRow[] = [];
        const tamperedEvents: { what: string; row: string; broken: string[] | undefined }[] = [];
        const result = await playChaos(
          { seed, ...SHORT_RUN },
          (line) => lines.push(line),
          async (played) => {
            tampered = await checkWithOneCountTampered(played);
            for (const [what, tamper, row] of ROW_TAMPERS) {
              const record = tamper(played.record);
              const rows = record && (await checkInvariants(record));
              tamperedEvents.push({
                what,
                row,
                broken: rows?.filter((checked) => checked.evidence.length > 0).map((checked) => checked.name),
              });
            }
          },
        );
        const explain = [...lines, formatTable(result.rows), 'schedule:', ...describeSchedule(result.schedule)].join(
          '\n',
        );
        expect(
          result.rows.filter((row) => row.evidence.length > 0),
          explain,
        ).toEqual([]);

        const firstCustomer = result.schedule.customerPlans[0]!.externalId;
        const broken = tampered.filter((row) => row.evidence.length > 0);
        expect(
          broken.map((row) => row.name),
          formatTable(tampered),
        ).toEqual([TOTALS_ROW]);
        expect(broken[0]!.evidence.join('\n')).toContain(`${firstCustomer} `);
        // Each tamper needs the run to have made what it tampers with (a payout whose end the endpoint heard).
        expect(tamperedEvents.map(({ what, broken }) => [what, broken])).toEqual(
          tamperedEvents.map(({ what, row }) => [what, [row]]),
        );
        // The run's own bounds (play, SETTLE_BOUND_SECONDS, the checks) end it first; this only stops a hang.
      },
      15 * 60_000,
    );
  }
});
