/**
 * Which of a journey's input timings are overrides (workflows/common/timings.ts): what continue-as-new
 * carries, and what a retune of a default does not touch.
 */
import { describe, expect, it } from 'vitest';
import { JOURNEY_TIMING_DEFAULTS, journeyTimingOverrides } from '../../workflows/common/timings';

describe('journeyTimingOverrides', () => {
  it('keeps every value of an input that lacks any timing the earlier code always filled in', () => {
    expect(journeyTimingOverrides(undefined)).toEqual({});
    expect(journeyTimingOverrides({ pollIntervalSeconds: 900, maxHistoryEvents: 2_000 })).toEqual({
      pollIntervalSeconds: 900,
      maxHistoryEvents: 2_000,
    });
  });

  it('drops the defaults the earlier code filled into a full input, of any day, and keeps the rest', () => {
    expect(journeyTimingOverrides({ ...JOURNEY_TIMING_DEFAULTS })).toEqual({});
    // A journey from before the backoff (no cap), started when the history limit was 10,000.
    expect(
      journeyTimingOverrides({
        pollIntervalSeconds: 3_600,
        kycDeadlineSeconds: 2_592_000,
        accountsDeadlineSeconds: 604_800,
        maxHistoryEvents: 10_000,
      }),
    ).toEqual({ pollIntervalSeconds: 3_600 });
    // The 12 h cap of its day is a default too; timings this code no longer knows are dropped.
    expect(
      journeyTimingOverrides({
        ...JOURNEY_TIMING_DEFAULTS,
        pollBackoffCapSeconds: 43_200,
        kycDeadlineSeconds: 120,
        depositStepDeadlineSeconds: 60,
      } as never),
    ).toEqual({ kycDeadlineSeconds: 120 });
  });
});
