/**
 * Writes the README's metrics table from observability/metric-catalogue.ts (between its markers):
 * `npx tsx dev/metrics-table.ts`. test/observability/metric-catalogue.test.ts fails while it is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { METRICS_TABLE_END, METRICS_TABLE_START, metricsTableMarkdown } from '../observability/metric-catalogue';

const readmePath = join(__dirname, '..', 'README.md');
const readme = readFileSync(readmePath, 'utf8');
const start = readme.indexOf(METRICS_TABLE_START);
const end = readme.indexOf(METRICS_TABLE_END);
if (start < 0 || end < start) throw new Error('README.md has no metrics table markers');
writeFileSync(readmePath, `${readme.slice(0, start + METRICS_TABLE_START.length)}\n${metricsTableMarkdown()}\n${readme.slice(end)}`);
