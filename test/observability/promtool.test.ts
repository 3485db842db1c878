/**
 * The alert rules, checked and unit-tested by Prometheus's own promtool: `promtool check rules`
 * (syntax, PromQL, templates) and `promtool test rules` on deploy/observability/prometheus/rules.test.yml,
 * which must cover every alert both where it fires and where it stays quiet.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  alertRules,
  MISSING_PROMETHEUS,
  PROMTOOL,
  RULES_DIR,
  RULES_FILE,
  RULES_TEST_FILE,
} from './support/prometheus-tools';

const run = promisify(execFile);

async function promtool(...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(PROMTOOL!, args, { cwd: RULES_DIR });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

interface RuleTest {
  name?: string;
  alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[];
}

describe.skipIf(!PROMTOOL)(`the alert rules, by promtool${PROMTOOL ? '' : ` (skipped: ${MISSING_PROMETHEUS})`}`, () => {
  it('pass `promtool check rules`', async () => {
    const result = await promtool('check', 'rules', RULES_FILE);
    expect(result.output).toContain('SUCCESS');
    expect(result.code, result.output).toBe(0);
  });

  it('pass their unit tests, `promtool test rules`', async () => {
    const result = await promtool('test', 'rules', RULES_TEST_FILE);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain('SUCCESS');
  });

  it('each alert has a unit test where it fires and one where it does not', () => {
    const tests = (parse(readFileSync(RULES_TEST_FILE, 'utf8')) as { tests: RuleTest[] }).tests;
    const checks = tests.flatMap((test) => test.alert_rule_test ?? []);
    for (const { alert } of alertRules()) {
      const mine = checks.filter((check) => check.alertname === alert);
      expect(
        mine.some((check) => (check.exp_alerts ?? []).length > 0),
        `${alert} fires in some test`,
      ).toBe(true);
      expect(
        mine.some((check) => (check.exp_alerts ?? []).length === 0),
        `${alert} stays quiet in some test`,
      ).toBe(true);
    }
    // And no test names an alert rules.yml does not have.
    const alerts = new Set(alertRules().map((rule) => rule.alert));
    expect(checks.map((check) => check.alertname).filter((name) => !alerts.has(name))).toEqual([]);
  });
});
