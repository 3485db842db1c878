import { describe, expect, it } from 'vitest';
import {
  describeSchedule,
  drawSchedule,
  EDGE_FAULT_KINDS,
  MAX_WORKERS,
  WEBHOOK_FAULT_KINDS,
} from '../../chaos/schedule';

const SEED_1_FAULTS = [
  { atSeconds: 11.5, kind: 'SCALE_WORKERS', workers: 2 },
  { atSeconds: 18, kind: 'SCALE_WORKERS', workers: 1 },
  { atSeconds: 21, kind: 'RESTART_RECEIVER' },
  { atSeconds: 32.1, kind: 'SERVICE_FAULTS', fault: 'HTTP_5XX', forSeconds: 7 },
  { atSeconds: 40.9, kind: 'SERVICE_FAULTS', fault: 'HTTP_5XX', forSeconds: 12 },
  { atSeconds: 55.7, kind: 'KILL_WORKER' },
];

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
      for (const plan of schedule.customerPlans) {
        if (
          plan.refund !== 'NONE' ||
          plan.closesAndReturns ||
          plan.payout !== 'NONE' ||
          plan.onrampDeposit !== 'CONFIRMED'
        )
          expect(plan.kyc).toBe('APPROVED');
        // A refund of the onramp deposit needs a deposit the service confirmed.
        if (plan.refund.startsWith('ONRAMP_')) expect(plan.onrampDeposit).toBe('CONFIRMED');
        // A refunded offramp deposit's payout is never failed too: the refund is what the plan follows.
        if (plan.refund.startsWith('OFFRAMP_')) expect(plan.offrampPayment).toBe('PAID');
        if (plan.closesAndReturns) expect([plan.refund, plan.payout]).toEqual(['NONE', 'NONE']);
      }
    }
  });

  it('plays every path of the workload across a handful of seeds', () => {
    const plans = Array.from(
      { length: 20 },
      (_, seed) => drawSchedule({ seed, customers: 4, minutes: 1.5 }).customerPlans,
    ).flat();
    const seen = (pick: (plan: (typeof plans)[number]) => string) => new Set(plans.map(pick));
    expect(seen((plan) => plan.signupVia)).toEqual(new Set(['CLIENT_LIBRARY', 'TEMPORAL_CLI', 'PARTNER_API']));
    expect(seen((plan) => plan.kyc)).toEqual(new Set(['APPROVED', 'REJECTED', 'PENDING']));
    const approved = plans.filter((plan) => plan.kyc === 'APPROVED');
    expect(new Set(approved.map((plan) => plan.onrampDeposit))).toEqual(
      new Set(['CONFIRMED', 'REJECTED', 'HELD_FOR_ACTION']),
    );
    expect(new Set(approved.map((plan) => plan.refund))).toEqual(
      new Set(['NONE', 'ONRAMP_BEFORE_TRADE', 'ONRAMP_DURING_TRADE', 'OFFRAMP_DURING_PAYOUT', 'OFFRAMP_AFTER_PAYOUT']),
    );
    expect(new Set(approved.map((plan) => plan.payout))).toEqual(
      new Set(['NONE', 'SETTLED', 'FAILED', 'REFUSED_THEN_RETRIED', 'REFUSED_THEN_CANCELLED']),
    );
    // Some offramp payouts fail at the service (never with a refund after the payout), their deposits
    // then cancelled by the operator singly or in bulk.
    const failedPayments = approved.filter((plan) => plan.offrampPayment === 'FAILED');
    expect(new Set(failedPayments.map((plan) => plan.depositCancelledInBulk))).toEqual(new Set([true, false]));
    expect(failedPayments.every((plan) => plan.refund !== 'OFFRAMP_AFTER_PAYOUT')).toBe(true);
    expect(plans.filter((plan) => plan.offrampPayment === 'FAILED').every((plan) => plan.kyc === 'APPROVED')).toBe(
      true,
    );
    expect(plans.filter((plan) => plan.depositCancelledInBulk).every((plan) => plan.offrampPayment === 'FAILED')).toBe(
      true,
    );
    // The operator resumes some refused payouts with the bulk command, others one by one; nothing else in bulk.
    expect(
      new Set(plans.filter((plan) => plan.payout === 'REFUSED_THEN_RETRIED').map((plan) => plan.retriedInBulk)),
    ).toEqual(new Set([true, false]));
    expect(plans.filter((plan) => plan.retriedInBulk).every((plan) => plan.payout === 'REFUSED_THEN_RETRIED')).toBe(
      true,
    );
  });

  it('lands about half the refunds while rampflow waits for the trade or the payout, from a stream of their own', () => {
    const draw = (seed: number) => drawSchedule({ seed, customers: 6, minutes: 1.5 }).customerPlans;
    const plans = Array.from({ length: 200 }, (_, seed) => draw(seed)).flat();
    const refunds = plans.filter((plan) => plan.refund !== 'NONE');
    const during = refunds.filter((plan) => plan.refund.includes('_DURING_'));
    expect(during.length / refunds.length).toBeGreaterThan(0.4);
    expect(during.length / refunds.length).toBeLessThan(0.6);
    // The stream of its own: the same customers refund the same deposit as before, only the moment moved.
    const deposit = (refund: string) => (refund === 'NONE' ? 'NONE' : refund.split('_')[0]);
    const beforeTheStream: Record<number, string[]> = {
      1: ['NONE', 'NONE', 'NONE', 'NONE', 'OFFRAMP', 'OFFRAMP'],
      4: ['OFFRAMP', 'NONE', 'NONE', 'NONE', 'NONE', 'NONE'],
    };
    for (const [seed, deposits] of Object.entries(beforeTheStream))
      expect(draw(Number(seed)).map((plan) => deposit(plan.refund))).toEqual(deposits);
    expect(draw(1)).toEqual(draw(1));
  });

  it('parks some journeys at their start, the operator retrying them singly or in bulk or cancelling them', () => {
    const plans = Array.from(
      { length: 200 },
      (_, seed) => drawSchedule({ seed, customers: 4, minutes: 1.5 }).customerPlans,
    ).flat();
    const parked = plans.filter((plan) => plan.journeyPark !== 'NONE');
    // About 15 % of the customers, whatever their KYC.
    expect(parked.length / plans.length).toBeGreaterThan(0.1);
    expect(parked.length / plans.length).toBeLessThan(0.2);
    expect(new Set(parked.map((plan) => plan.journeyPark))).toEqual(
      new Set(['RETRIED', 'RETRIED_IN_BULK', 'CANCELLED']),
    );
    expect(new Set(parked.map((plan) => plan.kyc))).toEqual(new Set(['APPROVED', 'REJECTED', 'PENDING']));
    // Never cancelled: the first customer (the run always follows its money) and the one that returns.
    for (const plan of parked.filter((each) => each.journeyPark === 'CANCELLED')) {
      expect(plan.externalId).not.toMatch(/-0$/);
      expect(plan.closesAndReturns).toBe(false);
    }
    // The same seed draws the same parks; seed 152 cancels one journey and bulk-retries another.
    const seed152 = () => drawSchedule({ seed: 152, customers: 4, minutes: 1.5 }).customerPlans;
    expect(seed152().map((plan) => plan.journeyPark)).toEqual(['NONE', 'CANCELLED', 'NONE', 'RETRIED_IN_BULK']);
    expect(seed152()).toEqual(seed152());
    expect(describeSchedule(drawSchedule({ seed: 152, customers: 4, minutes: 1.5 }))).toContain(
      '  t+25.2s signup chaos-152-1 via CLIENT_LIBRARY, its create refused: journey parked then CANCELLED, KYC APPROVED, onramp deposit CONFIRMED, refund NONE, payout SETTLED',
    );
    // Some approved customers' retried journeys park later, at their onramp flow's create; no other does.
    const later = parked.filter((plan) => plan.journeyParkedAt === 'ONRAMP_SETUP');
    expect(later.length / parked.length).toBeGreaterThan(0.1);
    for (const plan of later) {
      expect(plan.kyc).toBe('APPROVED');
      expect(plan.journeyPark).not.toBe('CANCELLED');
    }
    expect(
      plans.filter((plan) => plan.journeyPark === 'NONE').every((plan) => plan.journeyParkedAt === 'CUSTOMER_CREATE'),
    ).toBe(true);
    expect(describeSchedule(drawSchedule({ seed: 2, customers: 5, minutes: 2 }))).toContain(
      '  t+32.3s signup chaos-2-4 via CLIENT_LIBRARY, its onramp setup refused: journey parked then RETRIED_IN_BULK, KYC APPROVED, onramp deposit CONFIRMED, refund NONE, payout REFUSED_THEN_RETRIED (in bulk)',
    );
    // Drawn from a stream of their own: seed 1 parks none, its other draws as before.
    expect(drawSchedule({ seed: 1, customers: 4, minutes: 1.5 }).customerPlans.map((plan) => plan.journeyPark)).toEqual(
      ['NONE', 'NONE', 'NONE', 'NONE'],
    );
  });

  it('lets the partner endpoint answer 410 at most once a run, early enough to be enabled again within the play', () => {
    const gone = Array.from({ length: 20 }, (_, seed) =>
      drawSchedule({ seed, customers: 4, minutes: 1.5 }).faults.filter((fault) => fault.kind === 'ENDPOINT_GONE'),
    );
    expect(gone.some((faults) => faults.length === 1)).toBe(true);
    expect(gone.some((faults) => faults.length === 0)).toBe(true);
    for (const fault of gone.flat()) {
      expect(fault.kind === 'ENDPOINT_GONE' && fault.atSeconds + fault.forSeconds).toBeLessThan(0.75 * 90);
      expect(EDGE_FAULT_KINDS.has(fault.kind)).toBe(true);
    }
    expect(describeSchedule(drawSchedule({ seed: 2, customers: 4, minutes: 1.5 }))).toContain(
      '  t+28.9s ENDPOINT_GONE 410 for 10s, then enabled again',
    );
  });

  it('keeps the faults a seed drew before the workload and the edges widened', () => {
    // Seed 1's faults as v0 drew them: the customers' new choices, the edges and the clock steps come from streams of their own.
    const { faults } = drawSchedule({ seed: 1, customers: 4, minutes: 1.5 });
    expect(faults.filter((fault) => !EDGE_FAULT_KINDS.has(fault.kind) && fault.kind !== 'CLOCK_STEP')).toEqual(
      SEED_1_FAULTS,
    );
  });

  it("draws the service's lowered rate, the partner endpoint down and slow, and webhooks duplicated and out of order across seeds", () => {
    const schedules = Array.from({ length: 20 }, (_, seed) => drawSchedule({ seed, customers: 3, minutes: 1.5 }));
    const edgeKinds = new Set(
      schedules.flatMap((schedule) =>
        schedule.faults.filter((fault) => EDGE_FAULT_KINDS.has(fault.kind)).map((fault) => fault.kind),
      ),
    );
    expect(edgeKinds).toEqual(EDGE_FAULT_KINDS);
    expect(new Set(schedules.map((schedule) => schedule.webhooks.duplicate))).toEqual(new Set([true, false]));
    expect(new Set(schedules.map((schedule) => schedule.webhooks.outOfOrder))).toEqual(new Set([true, false]));
    for (const schedule of schedules)
      expect(schedule.faults.some((fault) => EDGE_FAULT_KINDS.has(fault.kind))).toBe(true);
  });

  it("keeps the edges a seed drew before the service's webhooks were lost and delayed", () => {
    const { faults } = drawSchedule({ seed: 1, customers: 4, minutes: 1.5 });
    expect(faults.filter((fault) => EDGE_FAULT_KINDS.has(fault.kind) && !WEBHOOK_FAULT_KINDS.has(fault.kind))).toEqual([
      { atSeconds: 11.3, kind: 'ENDPOINT_SLOW', answerMs: 1_500, forSeconds: 12 },
      { atSeconds: 30.8, kind: 'ENDPOINT_DOWN', forSeconds: 11 },
    ]);
  });

  it('draws windows of webhook loss and delay inside the play time, in the edges, for every seed', () => {
    const schedules = Array.from({ length: 20 }, (_, seed) => drawSchedule({ seed, customers: 4, minutes: 1.5 }));
    const webhookFaults = schedules.map((schedule) =>
      schedule.faults.filter((fault) => WEBHOOK_FAULT_KINDS.has(fault.kind)),
    );
    for (const faults of webhookFaults) expect(faults.length).toBeGreaterThanOrEqual(1);
    const all = webhookFaults.flat();
    expect(new Set(all.map((fault) => fault.kind))).toEqual(WEBHOOK_FAULT_KINDS);
    for (const fault of all) {
      expect(EDGE_FAULT_KINDS.has(fault.kind)).toBe(true);
      expect(fault.atSeconds).toBeGreaterThanOrEqual(9);
      expect(fault.atSeconds).toBeLessThanOrEqual(67.5);
      // A share of attempts lost, some of them all; held back beyond the run's one-second tick.
      if (fault.kind === 'WEBHOOKS_LOST') expect(fault.share).toBeGreaterThanOrEqual(0.3);
      if (fault.kind === 'WEBHOOKS_LOST') expect(fault.share).toBeLessThanOrEqual(1);
      if (fault.kind === 'WEBHOOKS_DELAYED') expect(fault.delaySeconds).toBeGreaterThan(1);
    }
    expect(describeSchedule(schedules[1]!)).toContain('  t+31.5s WEBHOOKS_LOST 94 % of attempts for 13s');
    // One window of events lost for good every run, early enough that the journeys it strikes still wait.
    for (const faults of webhookFaults) {
      const lostForGood = faults.filter((fault) => fault.kind === 'WEBHOOKS_LOST_FOR_GOOD');
      expect(lostForGood).toHaveLength(1);
      expect(lostForGood[0]!.atSeconds).toBeLessThanOrEqual(0.6 * 90);
    }
    expect(describeSchedule(schedules[1]!)).toContain(
      '  t+27.8s WEBHOOKS_LOST_FOR_GOOD 59 % of the events that happen in 15s',
    );
  });

  it("steps running workers' clocks a few seconds either way, from a stream of their own", () => {
    const steps = (minutes: number) =>
      Array.from({ length: 20 }, (_, seed) => drawSchedule({ seed, customers: 4, minutes })).map((schedule) =>
        schedule.faults.filter((fault) => fault.kind === 'CLOCK_STEP'),
      );
    for (const faults of steps(1.5)) expect(faults).toHaveLength(1);
    for (const faults of steps(30)) expect(faults).toHaveLength(21);
    const all = steps(1.5).flat();
    for (const fault of all) {
      if (fault.kind !== 'CLOCK_STEP') continue;
      expect(Math.abs(fault.bySeconds)).toBeGreaterThanOrEqual(3);
      expect(Math.abs(fault.bySeconds)).toBeLessThanOrEqual(8);
      expect(fault.atSeconds).toBeGreaterThanOrEqual(9);
      expect(fault.atSeconds).toBeLessThanOrEqual(0.75 * 90);
      expect(fault.pick).toBeGreaterThanOrEqual(0);
      expect(fault.pick).toBeLessThan(1);
    }
    expect(new Set(all.map((fault) => fault.kind === 'CLOCK_STEP' && Math.sign(fault.bySeconds)))).toEqual(
      new Set([-1, 1]),
    );
    expect(describeSchedule(drawSchedule({ seed: 1, customers: 4, minutes: 1.5 }))).toContain(
      '  t+22.4s CLOCK_STEP by +4s',
    );
  });

  it("sets some workers' clocks a few seconds off, one in each cycle exact, the faults a seed drew before unchanged", () => {
    for (let seed = 0; seed < 20; seed++) {
      const schedule = drawSchedule({ seed, customers: 4, minutes: 1.5 });
      expect(schedule.workerClockOffsetsSeconds).toHaveLength(4);
      expect(schedule.workerClockOffsetsSeconds.filter((offset) => offset === 0).length).toBeGreaterThanOrEqual(1);
      for (const offset of schedule.workerClockOffsetsSeconds) expect(Math.abs(offset)).toBeLessThanOrEqual(8);
      expect(drawSchedule({ seed, customers: 4, minutes: 1.5 }).workerClockOffsetsSeconds).toEqual(
        schedule.workerClockOffsetsSeconds,
      );
    }
    const offsets = Array.from(
      { length: 20 },
      (_, seed) => drawSchedule({ seed, customers: 4, minutes: 1.5 }).workerClockOffsetsSeconds,
    ).flat();
    expect(offsets.some((offset) => offset >= 3)).toBe(true);
    expect(offsets.some((offset) => offset <= -3)).toBe(true);
  });

  it('refuses options it cannot draw from', () => {
    expect(() => drawSchedule({ seed: -1, customers: 1, minutes: 1 })).toThrow('--seed');
    expect(() => drawSchedule({ seed: 1, customers: 0, minutes: 1 })).toThrow('--customers');
    expect(() => drawSchedule({ seed: 1, customers: 1, minutes: 0 })).toThrow('--minutes');
  });
});
