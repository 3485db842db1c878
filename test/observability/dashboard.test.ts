/**
 * The Grafana dashboard (deploy/observability/grafana/dashboards/rampflow.json): valid against
 * Grafana's dashboard schema (the `Dashboard` type of @grafana/schema, generated from Grafana's own
 * schema: the JSON is type-checked as an object literal, so a wrong type or an unknown field fails),
 * every panel's PromQL parsed by a real Prometheus, and every metric it names one rampflow or the
 * Temporal SDK emits (observability/metric-catalogue.ts) or a rule records. The alert rules' metric
 * names are held to the same list.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knownSeriesNames } from '../../observability/metric-catalogue';
import { PROJECT_ROOT } from '../support/run';
import { DASHBOARD_FILE, dashboardExpressions, withGrafanaVariables, type Panel } from './support/dashboard';
import {
  metricNamesIn,
  MISSING_PROMETHEUS,
  PROMETHEUS,
  recordedNames,
  ruleExpressions,
  startPrometheus,
  type RunningPrometheus,
} from './support/prometheus-tools';

describe('the Grafana dashboard', () => {
  const raw = readFileSync(DASHBOARD_FILE, 'utf8');

  it("is valid against Grafana's dashboard schema (@grafana/schema's Dashboard, checked by tsc)", async () => {
    // Inside the project's node_modules so that `@grafana/schema` resolves; removed after.
    const dir = join(PROJECT_ROOT, 'node_modules', '.cache', `rampflow-dashboard-check-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    try {
      const file = join(dir, 'dashboard-check.ts');
      writeFileSync(
        file,
        `import type { Dashboard } from '@grafana/schema';\nexport const dashboard: Dashboard = ${raw.trim()};\n`,
      );
      const tsc = join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      const args = [
        tsc,
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        '--target',
        'ES2022',
        '--module',
        'ESNext',
        '--moduleResolution',
        'Bundler',
        '--types',
        'node',
        file,
      ];
      const result = await promisify(execFile)(process.execPath, args, { cwd: PROJECT_ROOT }).then(
        () => ({ code: 0, output: '' }),
        (error: { code?: number; stdout?: string }) => ({ code: error.code ?? 1, output: error.stdout ?? '' }),
      );
      expect(result.output).toBe('');
      expect(result.code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("has the business overview and the SDK's health, each panel on the data source variable, ids unique", () => {
    const dashboard = JSON.parse(raw) as { uid: string; panels: (Panel & { datasource?: { uid: string } })[] };
    expect(dashboard.uid).toBe('rampflow-overview');
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of dashboard.panels.filter((candidate) => candidate.type !== 'row')) {
      expect(panel.datasource?.uid, panel.title).toBe('${datasource}');
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
    }
    const exprs = dashboardExpressions()
      .map((target) => target.expr)
      .join('\n');
    for (const name of [
      'rampflow_stage_transitions_total',
      'rampflow_parked_total',
      'rampflow_deposits_completed_total',
      'rampflow_deposits_reversed_total',
      'rampflow_deposit_amount_sum',
      'rampflow_payout_amount_sum',
      'rampflow:stage_oldest_waiter_seconds',
      'rampflow_service_outage',
      'rampflow_service_requests_total',
      'rampflow_webhook_requests_total',
      'rampflow_reconcile_last_complete_run_timestamp_seconds',
      'rampflow_partner_event_deliveries_total',
      'rampflow_partner_event_deliveries_parked_total',
      'temporal_workflow_task_execution_failed',
      'temporal_workflow_task_schedule_to_start_latency_bucket',
      'temporal_sticky_cache_hit',
      'temporal_activity_execution_failed',
    ])
      expect(exprs, `a panel shows ${name}`).toContain(name);
  });

  it('names only metrics that rampflow or the SDK emit, or that the rules record; so do the rules', () => {
    const known = new Set([...knownSeriesNames(), ...recordedNames()]);
    const unknown = [
      ...dashboardExpressions().flatMap(({ panel, expr }) =>
        metricNamesIn(expr)
          .filter((name) => !known.has(name))
          .map((name) => `${panel}: ${name}`),
      ),
      ...ruleExpressions().flatMap((expr) =>
        metricNamesIn(expr)
          .filter((name) => !known.has(name))
          .map((name) => `rules.yml: ${name}`),
      ),
    ];
    expect(unknown).toEqual([]);
    // The extraction itself finds names (a regex that found none would pass the check above).
    expect(
      metricNamesIn(
        'sum by (le) (rate(rampflow_stage_duration_seconds_bucket{stage="X"}[$__rate_interval])) / on (job) up',
      ),
    ).toEqual(['rampflow_stage_duration_seconds_bucket', 'up']);
  });
});

describe.skipIf(!PROMETHEUS)(
  `the dashboard's PromQL, parsed by a real Prometheus${PROMETHEUS ? '' : ` (skipped: ${MISSING_PROMETHEUS})`}`,
  () => {
    let prometheus: RunningPrometheus;
    beforeAll(async () => {
      prometheus = await startPrometheus();
    });
    afterAll(async () => {
      await prometheus?.close();
    });

    it("every panel's query parses and runs", async () => {
      const failures: string[] = [];
      for (const { panel, expr } of dashboardExpressions()) {
        await prometheus
          .query(withGrafanaVariables(expr))
          .catch((error: Error) => failures.push(`${panel}: ${error.message}`));
      }
      expect(failures).toEqual([]);
    });

    it('a query with a syntax error is refused (the check can fail)', async () => {
      await expect(prometheus.query('sum by (stage (rampflow_stage_transitions_total)')).rejects.toThrow(/bad_data/);
    });
  },
);
