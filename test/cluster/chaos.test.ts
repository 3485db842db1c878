/**
 * The chaos run on the cluster profile (`npm run chaos -- --cluster`): the Temporal server on a
 * private PostgreSQL, a seed whose schedule kills and restarts the server and stops and starts
 * PostgreSQL beside the dev-server run's faults; every invariant row OK.
 */
import { describe, expect, it } from 'vitest';
import { playChaos } from '../../chaos/play';
import { describeSchedule } from '../../chaos/schedule';
import { formatTable } from '../../chaos/table';

/** Seed 48 at this size strikes both cluster faults (test/chaos/cluster-schedule.test.ts holds it). */
const RUN = { seed: 48, customers: 3, minutes: 1.5, cluster: true };

describe('the chaos run on the cluster profile', () => {
  it(
    'holds every invariant through the Temporal server killed and PostgreSQL restarted',
    async () => {
      const lines: string[] = [];
      const result = await playChaos(RUN, (line) => lines.push(line));
      const explain = [...lines, formatTable(result.rows), 'schedule:', ...describeSchedule(result.schedule)].join(
        '\n',
      );
      expect(result.figures.faultsStruck, explain).toMatchObject({
        RESTART_TEMPORAL: expect.any(Number),
        RESTART_POSTGRES: expect.any(Number),
      });
      expect(
        result.rows.filter((row) => row.evidence.length > 0),
        explain,
      ).toEqual([]);
      // The run's own bounds (play, SETTLE_BOUND_SECONDS, the checks) end it first; this only stops a hang.
    },
    15 * 60_000,
  );
});
