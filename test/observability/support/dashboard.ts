/**
 * The Grafana dashboard's queries (deploy/observability/grafana/dashboards/rampflow.json), read as
 * Grafana sends them: test/observability/dashboard.test.ts parses them with a real Prometheus, and
 * test/observability/prometheus-scrape.temporal.test.ts asks one that scraped a run for their data.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../support/run';

export const DASHBOARD_FILE = join(PROJECT_ROOT, 'deploy', 'observability', 'grafana', 'dashboards', 'rampflow.json');

export interface Panel {
  id: number;
  type: string;
  title: string;
  targets?: { expr: string; refId: string }[];
}

/** Every panel's every query, with its panel's title and its refId. */
export function dashboardExpressions(file = DASHBOARD_FILE): { panel: string; refId: string; expr: string }[] {
  const dashboard = JSON.parse(readFileSync(file, 'utf8')) as { panels: Panel[] };
  return dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ panel: panel.title, refId: target.refId, expr: target.expr })),
  );
}

/**
 * Grafana's variables, as Grafana fills them in before the query reaches Prometheus: its intervals
 * as `window`. The data source variable is the panels' (not in a query), and there is no other.
 */
export const withGrafanaVariables = (expr: string, window = '5m'): string =>
  expr.replace(/\$__rate_interval|\$__interval|\$__range/g, window);
