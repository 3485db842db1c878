import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { generatePayloadKey } from './codec/keys';

// Every test runs encrypted, like production: one fresh payload key per run, inherited by the test
// processes and by every process they start (workers, receivers, the CLI). Submitted documents go to
// a folder of the run's own.
process.env.RAMPFLOW_PAYLOAD_KEYS ||= generatePayloadKey('test-run');
process.env.RAMPFLOW_ATTACHMENTS_DIR ||= mkdtempSync(join(tmpdir(), 'rampflow-attachments-'));

// Three projects: `unit` needs nothing but Node (loopback HTTP servers included) and PostgreSQL's
// binaries (the partner event store's suite starts a private instance, dev/postgres.ts);
// `temporal` (files named *.temporal.test.ts) shares one Temporal dev server started by globalSetup;
// `faults` (test/faults, `npm run test:faults`) starts its own dev servers, workers and receivers,
// kills and restarts them. Each file loads the machine, so `npm run test:faults` runs them one at a
// time (--no-file-parallelism: a root-level option, not a project's), and `npm test` leaves them out.
// `cluster` (`npm run test:cluster`) runs the journey suites on a Temporal server on PostgreSQL
// (test/cluster/support/global-setup.ts) and the fault cases that break that topology (test/cluster),
// one file at a time as well.
// All run in forked processes: Temporal's native runtime does not work in worker threads.
export default defineConfig({
  test: {
    pool: 'forks',
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.temporal.test.ts', 'test/faults/**', 'test/cluster/**'],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'temporal',
          include: ['test/**/*.temporal.test.ts'],
          exclude: ['test/faults/**', 'test/cluster/**'],
          globalSetup: ['test/support/temporal-global-setup.ts'],
          setupFiles: ['test/support/quiet-temporal-runtime.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'faults',
          include: ['test/faults/**/*.test.ts'],
          globalSetup: ['test/faults/support/global-setup.ts'],
          setupFiles: ['test/faults/support/quiet-runtime.ts'],
          // Waits inside the cases are bounded polls of state with their own limits; these only
          // stop a case that hangs outright.
          testTimeout: 600_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'cluster',
          include: [
            // The journey suites end to end, on the shared cluster of the global setup.
            'test/workflows/journey.temporal.test.ts',
            'test/workflows/deposit.temporal.test.ts',
            'test/workflows/continue-as-new.temporal.test.ts',
            'test/webhooks/journey-by-webhooks.temporal.test.ts',
            'test/webhooks/reconcile.temporal.test.ts',
            'test/client/client.temporal.test.ts',
            // The fault cases, each on a cluster of its own.
            'test/cluster/**/*.test.ts',
          ],
          globalSetup: ['test/cluster/support/global-setup.ts'],
          setupFiles: ['test/faults/support/quiet-runtime.ts'],
          testTimeout: 600_000,
          // A fault case's beforeAll starts a whole cluster (initdb, schemas, server).
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
