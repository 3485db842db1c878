/**
 * The current workflows as a release that retunes every journey and deposit default to almost
 * nothing (one-second polls and deadlines, a history limit of 20) would ship them. Were a retune to
 * reach histories recorded before its patch, their replay would time out, park or continue as new
 * where the recorded run did not: test/workflows/replay.test.ts replays the corpus on it.
 */
import { DEPOSIT_RETUNES, JOURNEY_RETUNES } from '../../../workflows/common/timings';

JOURNEY_RETUNES.push({
  patchId: 'test-retune-every-journey-default',
  defaults: {
    pollIntervalSeconds: 1,
    pollBackoffCapSeconds: 1,
    kycDeadlineSeconds: 1,
    accountsDeadlineSeconds: 1,
    maxHistoryEvents: 20,
  },
});
DEPOSIT_RETUNES.push({
  patchId: 'test-retune-every-deposit-default',
  defaults: { pollIntervalSeconds: 1, pollBackoffCapSeconds: 1, stepDeadlineSeconds: 1 },
});

export * from '../../../workflows';
