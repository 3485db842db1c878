/**
 * The seeds the short chaos run (test/faults/chaos.test.ts) always plays. A seed that finds a defect
 * joins this list once the defect has a test of its own and a fix, so it stays found.
 */
// Seed 4 found the call limit broken (held by test/workers/partner-rate.temporal.test.ts) and a refund
// of a completed deposit left unreported. One path of that is fixed and held by
// test/workflows/refund-while-completing.temporal.test.ts, but seed 4 broke the same rows once in four
// runs after the fix (docs/guarantees/chaos.md, "What it found": open), so it stays out of this list
// until the other path has a test and a fix. Seed 48's finding is the cluster's (test/cluster/chaos.test.ts).
export const SHORT_RUN_SEEDS = [1];

/** The short run's size: small enough for the fault suite on a shared 2-core machine. */
export const SHORT_RUN = { customers: 4, minutes: 1.5 };
