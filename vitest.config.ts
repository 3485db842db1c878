import { defineConfig } from 'vitest/config';

// Two projects: `unit` needs nothing but Node (loopback HTTP servers included);
// `temporal` (files named *.temporal.test.ts) shares one Temporal dev server started by globalSetup.
// Both run in forked processes: Temporal's native runtime does not work in worker threads.
export default defineConfig({
  test: {
    pool: 'forks',
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.temporal.test.ts', 'test/faults/**'],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'temporal',
          include: ['test/**/*.temporal.test.ts'],
          exclude: ['test/faults/**'],
          globalSetup: ['test/support/temporal-global-setup.ts'],
          setupFiles: ['test/support/quiet-temporal-runtime.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
