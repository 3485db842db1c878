/**
 * Every alert links its runbook (docs/runbooks/<alert>.md, a path in the repository), every link
 * resolves to a file with the page's sections, and every runbook belongs to an alert.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../support/run';
import { alertRules } from './support/prometheus-tools';

const RUNBOOKS = join(PROJECT_ROOT, 'docs', 'runbooks');

describe('runbooks', () => {
  const alerts = alertRules();

  it('every alert has a runbook_url naming its own page, and the page exists with what it means, what to look at, what to do', () => {
    expect(alerts.length).toBeGreaterThanOrEqual(8);
    for (const { alert, annotations } of alerts) {
      const url = annotations?.runbook_url;
      expect(url, `${alert} has a runbook_url`).toBe(`docs/runbooks/${alert}.md`);
      const path = join(PROJECT_ROOT, url!);
      expect(existsSync(path), `${url} exists`).toBe(true);
      const page = readFileSync(path, 'utf8');
      expect(page.startsWith(`# ${alert}\n`), `${url} is titled ${alert}`).toBe(true);
      for (const section of ['**What it means.**', '**What to look at.**', '**What to do.**'])
        expect(page, `${url}: ${section}`).toContain(section);
    }
  });

  it("every runbook is an alert's, and the index and the metrics and alerts page link each one", () => {
    const names = new Set(alerts.map((rule) => rule.alert));
    const pages = readdirSync(RUNBOOKS).filter((file) => file !== 'README.md' && file.endsWith('.md'));
    expect(pages.filter((file) => !names.has(file.replace(/\.md$/, '')))).toEqual([]);
    const index = readFileSync(join(RUNBOOKS, 'README.md'), 'utf8');
    const alertsPage = readFileSync(join(PROJECT_ROOT, 'docs', 'operating', 'metrics-and-alerts.md'), 'utf8');
    for (const alert of names) {
      expect(index, `docs/runbooks/README.md links ${alert}`).toContain(`(${alert}.md)`);
      expect(alertsPage, `docs/operating/metrics-and-alerts.md links ${alert}'s runbook`).toContain(
        `(../runbooks/${alert}.md)`,
      );
    }
  });
});
