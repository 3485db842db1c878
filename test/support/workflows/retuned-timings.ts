/**
 * The current workflows as a release that retunes the journey's and the deposit's polling would ship
 * them: a bundle of this file is "the next release" of test/workflows/timings.temporal.test.ts. The
 * retunes are appended here, at the bundle's load, so production code has none; a real retune is an
 * entry in workflows/common/timings.ts itself.
 */
import { DEPOSIT_RETUNES, JOURNEY_RETUNES } from '../../../workflows/common/timings';

// Only workflows may be exported from a bundle's entry, so the tests spell these change-ids themselves.
JOURNEY_RETUNES.push({
  patchId: 'test-retune-journey-polls-2s',
  defaults: { pollIntervalSeconds: 2, pollBackoffCapSeconds: 2, maxHistoryEvents: 150 },
});
DEPOSIT_RETUNES.push({
  patchId: 'test-retune-deposit-polls-2s',
  defaults: { pollIntervalSeconds: 2, pollBackoffCapSeconds: 2 },
});

export * from '../../../workflows';
