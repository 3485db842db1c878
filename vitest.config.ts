import { mkdtempSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { generatePayloadKey } from './codec/keys';

// Every test runs encrypted, like production: one fresh payload key per run, inherited by the test
// processes and by every process they start (workers, receivers, the CLI). Submitted documents go to
// a folder of the run's own.
process.env.RAMPFLOW_PAYLOAD_KEYS ||= generatePayloadKey('test-run');
process.env.RAMPFLOW_ATTACHMENTS_DIR ||= mkdtempSync(join(tmpdir(), 'rampflow-attachments-'));

// `unit` needs nothing but Node (loopback HTTP servers included) and runs in-process: `npm run
// check`'s quick loop. `processes` is the rest that needs no Temporal server: files that start
// processes (the CLI, the dev stack, Go, promtool, Chromium, a private PostgreSQL, dev/postgres.ts).
// Both run in `npm test`.
// `temporal` (files named *.temporal.test.ts) shares one Temporal dev server started by globalSetup;
// `faults` (test/faults, `npm run test:faults`) starts its own dev servers, workers and receivers,
// kills and restarts them. Each file loads the machine, so `npm run test:faults` runs them one at a
// time (--no-file-parallelism: a root-level option, not a project's), and `npm test` leaves them out.
// `cluster` (`npm run test:cluster`) runs the journey suites on a Temporal server on PostgreSQL
// (test/cluster/support/global-setup.ts) and the fault cases that break that topology (test/cluster),
// one file at a time as well.
// All run in forked processes: Temporal's native runtime does not work in worker threads.
/** Tests without Temporal that start processes: out of `npm run check`'s quick loop, in `npm test`. */
const PROCESS_TESTS = [
  'test/sandbox/cli.test.ts',
  'test/ramp/cli-api.test.ts',
  'test/ramp/assumptions-file.test.ts',
  'test/partner-events/listen.test.ts',
  'test/partner-events/postgres-store.test.ts',
  'test/partner-events/go-verify.test.ts',
  'test/deploy/compose.test.ts',
  'test/observability/promtool.test.ts',
  'test/observability/dashboard.test.ts',
  'test/dev/web-ui-codec.test.ts',
  'test/dev/rampflow-dev.test.ts',
  'test/dev/temporal-cli.test.ts',
  'test/cli/journey-cli.test.ts',
  'test/cli/partner-events-endpoints.test.ts',
  'test/cli/probe.test.ts',
  'test/docs/client-api.test.ts',
  'test/chaos/process-memory.test.ts',
  'test/chaos/worker-clock.test.ts',
  'test/ramp/pacer-clock-jump.test.ts',
];

export default defineConfig({
  test: {
    pool: 'forks',
    // Vitest's default (one file fewer than the cores) runs one file at a time on a 2-core machine, and
    // most Temporal test files spend their time waiting on timers, polls and the server: three at a
    // time about halved `npm test` there (18 minutes under load). The fault and cluster suites run one file at a
    // time whatever this says (--no-file-parallelism): they own servers and kill processes.
    maxWorkers: Math.max(availableParallelism() - 1, 3),
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.temporal.test.ts', 'test/faults/**', 'test/cluster/**', ...PROCESS_TESTS],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'processes',
          include: PROCESS_TESTS,
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
