import { describe, expect, it } from 'vitest';
import { describeSchedule, drawSchedule } from '../../chaos/schedule';

describe('the chaos schedule on the cluster profile', () => {
  it('restarts PostgreSQL as well as the Temporal server, and only on the cluster', () => {
    const kinds = (cluster: boolean) =>
      new Set(
        Array.from({ length: 50 }, (_, seed) =>
          drawSchedule({ seed, customers: 5, minutes: 2, cluster }).faults.map((fault) => fault.kind),
        ).flat(),
      );
    expect(kinds(true)).toContain('RESTART_POSTGRES');
    expect(kinds(true)).toContain('RESTART_TEMPORAL');
    expect(kinds(false)).not.toContain('RESTART_POSTGRES');
  });

  it('keeps each PostgreSQL outage to 2 to 5 s, and prints it', () => {
    // Seed 48 at 3 customers and 1.5 minutes strikes both restarts (the size test/cluster/chaos.test.ts plays).
    const schedule = drawSchedule({ seed: 48, customers: 3, minutes: 1.5, cluster: true });
    const outages = schedule.faults.filter((fault) => fault.kind === 'RESTART_POSTGRES');
    expect(outages.length).toBeGreaterThan(0);
    expect(schedule.faults.some((fault) => fault.kind === 'RESTART_TEMPORAL')).toBe(true);
    for (const outage of outages) expect([2, 3, 4, 5]).toContain(outage.forSeconds);
    expect(describeSchedule(schedule).join('\n')).toMatch(/RESTART_POSTGRES down for \ds/);
    expect(describeSchedule(schedule)[0]).toContain('seed 48 (cluster)');
  });
});
