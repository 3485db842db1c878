import { describe, expect, it } from 'vitest';
import { describeSchedule, drawSchedule, MAX_WORKERS } from '../../chaos/schedule';

describe('the chaos schedule', () => {
  it('is the same for the same seed, and differs for another', () => {
    const options = { seed: 7, customers: 12, minutes: 3 };
    expect(drawSchedule(options)).toEqual(drawSchedule({ ...options }));
    expect(describeSchedule(drawSchedule(options))).toEqual(describeSchedule(drawSchedule(options)));
    expect(drawSchedule({ ...options, seed: 8 })).not.toEqual(drawSchedule(options));
  });

  it('keeps every fault inside the play time, in order, with 1 to 3 workers', () => {
    for (let seed = 0; seed < 50; seed += 1) {
      const schedule = drawSchedule({ seed, customers: 5, minutes: 2 });
      expect(schedule.faults.length).toBeGreaterThanOrEqual(3);
      const times = schedule.faults.map((fault) => fault.atSeconds);
      expect(times).toEqual([...times].sort((a, b) => a - b));
      for (const fault of schedule.faults) {
        expect(fault.atSeconds).toBeGreaterThanOrEqual(0);
        expect(fault.atSeconds).toBeLessThan(schedule.playSeconds);
        if (fault.kind === 'SCALE_WORKERS') expect(fault.workers).toBeGreaterThanOrEqual(1);
        if (fault.kind === 'SCALE_WORKERS') expect(fault.workers).toBeLessThanOrEqual(MAX_WORKERS);
      }
      expect(schedule.initialWorkers).toBeGreaterThanOrEqual(1);
      expect(schedule.initialWorkers).toBeLessThanOrEqual(MAX_WORKERS);
      expect(schedule.customerPlans[0]!.kyc).toBe('APPROVED');
      expect(schedule.customerPlans.filter((plan) => plan.closesAndReturns).length).toBeLessThanOrEqual(1);
      for (const plan of schedule.customerPlans) if (plan.refundsOnramp || plan.closesAndReturns) expect(plan.kyc).toBe('APPROVED');
    }
  });

  it('refuses options it cannot draw from', () => {
    expect(() => drawSchedule({ seed: -1, customers: 1, minutes: 1 })).toThrow('--seed');
    expect(() => drawSchedule({ seed: 1, customers: 0, minutes: 1 })).toThrow('--customers');
    expect(() => drawSchedule({ seed: 1, customers: 1, minutes: 0 })).toThrow('--minutes');
  });
});
