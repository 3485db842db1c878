/**
 * The current workflows entered through another module: a bundle of this file runs exactly the code
 * of workflows/index.ts under a different build ID (test/workers/upgrade.temporal.test.ts uses it
 * when the current code is still exactly the last release, so that a deploy can still be shown).
 */
export * from '../../../workflows';
