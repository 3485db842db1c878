/**
 * One list of metrics (observability/metric-catalogue.ts), and the code that emits them, kept equal:
 * every metric created in the source (the runtime's and workflows' `create*` calls, prom-client's
 * `new Counter/Gauge/Histogram({ name })`) is in the catalogue with the same type, every catalogue
 * entry is created somewhere, and the table of docs/reference/metrics.md is the generated one. No label may name an id.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  METRICS,
  METRICS_TABLE_END,
  METRICS_TABLE_START,
  metricsTableMarkdown,
  type MetricType,
} from '../../observability/metric-catalogue';
import { PROJECT_ROOT } from '../support/run';

const SOURCE_FOLDERS = [
  'activities',
  'workflows',
  'workers',
  'webhooks',
  'ramp',
  'client',
  'cli',
  'partner-api',
  'partner-events',
  'codec',
  'config',
  'observability',
  'attachments',
];

function sourceFiles(folder: string): string[] {
  const root = join(PROJECT_ROOT, folder);
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(root, entry);
    if (statSync(path).isDirectory()) return sourceFiles(relative(PROJECT_ROOT, path));
    return entry.endsWith('.ts') ? [path] : [];
  });
}

interface Emitted {
  name: string;
  type: MetricType;
  where: string;
}

const CREATE = /\.create(Counter|Gauge|Histogram|UpDownCounter)\(\s*([^,)]+)/g;
const PROM_CLIENT = /new (Counter|Gauge|Histogram)\(\{\s*name:\s*([^,\n]+)/g;

/** Every metric the source creates, its name resolved through METRICS when it is written `METRICS.key.name`. */
export function emittedMetrics(): { emitted: Emitted[]; unresolved: string[] } {
  const emitted: Emitted[] = [];
  const unresolved: string[] = [];
  for (const file of SOURCE_FOLDERS.flatMap(sourceFiles)) {
    const text = readFileSync(file, 'utf8');
    for (const pattern of [CREATE, PROM_CLIENT]) {
      for (const match of text.matchAll(pattern)) {
        const where = `${relative(PROJECT_ROOT, file)}: ${match[0].replace(/\s+/g, ' ')}`;
        const kind = match[1]!;
        const type: MetricType = kind === 'Histogram' ? 'histogram' : kind === 'Gauge' ? 'gauge' : 'counter';
        const argument = match[2]!.trim();
        const literal = /^'([^']+)'$/.exec(argument);
        const reference = /^METRICS\.(\w+)\.name$/.exec(argument);
        const name = literal?.[1] ?? (reference ? METRICS[reference[1] as keyof typeof METRICS]?.name : undefined);
        if (name === undefined) unresolved.push(where);
        else emitted.push({ name, type, where });
      }
    }
  }
  return { emitted, unresolved };
}

describe('the metric catalogue', () => {
  const { emitted, unresolved } = emittedMetrics();
  const listed = new Map(Object.values(METRICS).map((metric) => [metric.name, metric]));

  it('finds the metrics the code creates (the scan itself works)', () => {
    expect(emitted.length).toBeGreaterThan(10);
    expect(unresolved).toEqual([]);
  });

  it('lists every metric the code creates, with its type', () => {
    const missing = emitted.filter((metric) => listed.get(metric.name)?.type !== metric.type);
    expect(missing.map((metric) => `${metric.where} (${metric.type})`)).toEqual([]);
  });

  it('lists no metric the code never creates', () => {
    const created = new Set(emitted.map((metric) => metric.name));
    expect([...listed.keys()].filter((name) => !created.has(name))).toEqual([]);
  });

  it('follows Prometheus naming: counters end in _total, no other type does, durations in seconds, no id as a label', () => {
    for (const metric of listed.values()) {
      expect(metric.name, metric.name).toMatch(/^[a-z_][a-z0-9_]*$/);
      expect(metric.name.endsWith('_total'), metric.name).toBe(metric.type === 'counter');
      expect(metric.name, metric.name).not.toMatch(/_(ms|milliseconds|minutes|hours)(_|$)/);
      for (const label of metric.labels)
        expect(label, `${metric.name}{${label}}`).not.toMatch(/id$|_id|external|customer|email|name/i);
      if (metric.buckets) expect(metric.type).toBe('histogram');
    }
  });

  it("is the metrics reference page's table, between its markers", () => {
    const page = readFileSync(join(PROJECT_ROOT, 'docs', 'reference', 'metrics.md'), 'utf8');
    const start = page.indexOf(METRICS_TABLE_START);
    const end = page.indexOf(METRICS_TABLE_END);
    expect(start, "docs/reference/metrics.md has the table's start marker").toBeGreaterThanOrEqual(0);
    expect(end).toBeGreaterThan(start);
    expect(
      page.slice(start + METRICS_TABLE_START.length, end).trim(),
      'docs/reference/metrics.md is stale: run `npm run docs:generate`',
    ).toBe(metricsTableMarkdown());
  });
});
