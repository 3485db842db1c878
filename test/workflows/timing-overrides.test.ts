/**
 * Which of a journey's input timings are overrides (workflows/common/timings.ts): what continue-as-new
 * carries, and what a retune of a default does not touch.
 */
import { describe, expect, it } from 'vitest';
import { JOURNEY_TIMING_DEFAULTS, journeyTimingOverrides } from '../../workflows/common/timings';

describe('journeyTimingOverrides', () => {
  it('keeps every timing the input gives, defaults included: 1.0 inputs hold overrides only', () => {
    expect(journeyTimingOverrides(undefined)).toEqual({});
    expect(journeyTimingOverrides({ pollIntervalSeconds: 900, maxHistoryEvents: 2_000 })).toEqual({
      pollIntervalSeconds: 900,
      maxHistoryEvents: 2_000,
    });
    expect(journeyTimingOverrides({ ...JOURNEY_TIMING_DEFAULTS })).toEqual({ ...JOURNEY_TIMING_DEFAULTS });
  });

  it('drops the timings this code does not know (the deposit timings journeys once carried)', () => {
    expect(journeyTimingOverrides({ kycDeadlineSeconds: 120, depositStepDeadlineSeconds: 60 } as never)).toEqual({
      kycDeadlineSeconds: 120,
    });
  });
});
