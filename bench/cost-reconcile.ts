/**
 * What reconciliation costs the service: list pages (one call each) per scheduled run with many idle
 * customers, from each run's own result (ReconcileResult.pages). The sandbox holds the customers
 * (seeded in one call, POST /sandbox/seed, approved and unannounced) and lists newest first, as
 * rampflow assumes; the reconciliation runs on a real Temporal Schedule every few seconds, so each run
 * gets the previous one's watermark exactly as in production (every 30 minutes).
 *
 * - first run: no watermark, so every list is read as with RECONCILE_LIST_ORDER=unknown, which reads
 *   like this on every run (up to maxPages, 100 pages, per list);
 * - a run with nothing new;
 * - the run that finds 100 new deposits no event announced (and starts their workflows).
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { jsonBody } from '../ramp';
import { ensureReconcileSchedule } from '../webhooks/reconcile-schedule';
import type { ReconcileResult } from '../workflows/reconcile/types';
import type { BenchOptions } from './options';
import type { Figure } from './report';
import { sleep } from './support/concurrency';
import { startRampflowStack } from './support/rampflow-stack';
import { startBenchTemporal } from './support/temporal';

const NEW_DEPOSITS = 100;
const RUN_EVERY_SECONDS = 5;

const pagesOf = (result: ReconcileResult) =>
  result.pages
    ? result.pages.customers + result.pages.deposits + result.pages.trades + (result.pages.rejectedDeposits ?? 0)
    : Number.NaN;
const describePages = (result: ReconcileResult) =>
  `customers ${result.pages?.customers}, deposits ${result.pages?.deposits}, rejected deposits ${result.pages?.rejectedDeposits ?? 0}, trades ${result.pages?.trades} pages`;

async function reconcileRuns(
  customers: number,
  options: BenchOptions,
): Promise<{ first: ReconcileResult; idle: ReconcileResult; withDeposits: ReconcileResult }> {
  const temporal = await startBenchTemporal();
  try {
    const stack = await startRampflowStack(temporal, {
      name: `cost-reconcile-${customers}`,
      deliveryTickSeconds: 1,
      autopilot: false,
      listOrder: 'newest-first',
    });
    try {
      const seed = (body: object) =>
        stack.ramp.http.request({ method: 'POST', path: '/sandbox/seed', body: jsonBody(body) }, z.unknown());
      await seed({ customers, externalIdPrefix: 'idle-' });
      const scheduleId = `bench-reconcile-${randomUUID()}`;
      await ensureReconcileSchedule(temporal.client, {
        scheduleId,
        taskQueue: stack.taskQueue,
        intervalSeconds: RUN_EVERY_SECONDS,
        limits: { listOrder: 'newest-first' },
      });
      const schedule = temporal.client.schedule.getHandle(scheduleId);
      try {
        const nthRun = async (n: number): Promise<ReconcileResult> => {
          for (;;) {
            stack.worker?.assertAlive();
            const { info } = await schedule.describe();
            const action = info.recentActions[n - 1];
            if (action)
              return temporal.client.workflow
                .getHandle(action.action.workflow.workflowId, action.action.workflow.firstExecutionRunId)
                .result() as Promise<ReconcileResult>;
            await sleep(500);
          }
        };
        options.progress(`reconciliation with ${customers.toLocaleString('en-US')} idle customers: first run`);
        const first = await nthRun(1);
        const idle = await nthRun(2);
        await seed({ deposits: NEW_DEPOSITS });
        options.progress(
          `reconciliation with ${customers.toLocaleString('en-US')} idle customers: ${NEW_DEPOSITS} new deposits`,
        );
        let run = 3;
        let withDeposits = await nthRun(run);
        while (withDeposits.examined.deposits === 0 && run < 10) withDeposits = await nthRun(++run);
        return { first, idle, withDeposits };
      } finally {
        await schedule.delete();
      }
    } finally {
      await stack.stop();
    }
  } finally {
    await temporal.stop();
  }
}

export async function benchReconcileCost(options: BenchOptions): Promise<Figure[]> {
  const sizes = options.quick ? [1_000, 10_000] : [10_000, 100_000];
  const figures: Figure[] = [];
  for (const customers of sizes) {
    const { first, idle, withDeposits } = await reconcileRuns(customers, options);
    const size = `${customers.toLocaleString('en-US')} idle customers`;
    const method =
      'pages read by the run (one list call each; no lagging record, so no detail read), from its result; sandbox listing newest first; scheduled runs';
    figures.push(
      {
        name: `reconcile: service calls, first run / order unknown, ${size}`,
        value: pagesOf(first),
        unit: 'calls',
        method: `${method}; no watermark yet: every list read up to 100 pages (${describePages(first)}${first.truncated ? ', cut at maxPages' : ''}); RECONCILE_LIST_ORDER=unknown reads like this on every run`,
      },
      {
        name: `reconcile: service calls per run, nothing new, ${size}`,
        value: pagesOf(idle),
        unit: 'calls',
        method: `${method}; ${describePages(idle)}, ${idle.examined.customers} newest customers looked at for KYC decisions`,
      },
      {
        name: `reconcile: service calls per run, ${NEW_DEPOSITS} new deposits, ${size}`,
        value: pagesOf(withDeposits),
        unit: 'calls',
        method: `${method}; ${describePages(withDeposits)}; ${withDeposits.examined.deposits} deposits looked at, ${withDeposits.repaired} workflows started`,
      },
    );
  }
  return figures;
}
