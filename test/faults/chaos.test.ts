/**
 * The short chaos run (chaos/, `npm run chaos`): each seed of chaos/seeds.ts played against the whole
 * stack, every invariant row OK. Then the same run's evidence with one count tampered (a journey that
 * counted a deposit the service never completed, as a worker that counted a hint would) must break the
 * totals row and name the customer: the row can fail.
 */
import { describe, expect, it } from 'vitest';
import { checkInvariants, TOTALS_ROW, type InvariantRow } from '../../chaos/invariants';
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
    return { ...customer, lastState: { ...customer.lastState, deposits: { ...deposits, completedTotals: { ...deposits.completedTotals, USD: usd.toFixed(2) } } } };
  });
  return checkInvariants({ ...result.record, customers });
}

describe('the short chaos run', () => {
  for (const seed of SHORT_RUN_SEEDS) {
    it(`holds every invariant with seed ${seed}, and a tampered count breaks its row`, async () => {
      const lines: string[] = [];
      let tampered: InvariantRow[] = [];
      const result = await playChaos({ seed, ...SHORT_RUN }, (line) => lines.push(line), async (played) => {
        tampered = await checkWithOneCountTampered(played);
      });
      const explain = [...lines, formatTable(result.rows), 'schedule:', ...describeSchedule(result.schedule)].join('\n');
      expect(result.rows.filter((row) => row.evidence.length > 0), explain).toEqual([]);

      const firstCustomer = result.schedule.customerPlans[0]!.externalId;
      const broken = tampered.filter((row) => row.evidence.length > 0);
      expect(broken.map((row) => row.name), formatTable(tampered)).toEqual([TOTALS_ROW]);
      expect(broken[0]!.evidence.join('\n')).toContain(`${firstCustomer} `);
      // The run's own bounds (play, SETTLE_BOUND_SECONDS, the checks) end it first; this only stops a hang.
    }, 15 * 60_000);
  }
});
