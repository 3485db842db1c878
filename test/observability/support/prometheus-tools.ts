/**
 * Debian's `prometheus` package (`apt-get install prometheus`: `promtool` and the server), which the
 * observability tests run for real; .ci/run installs it. Where it is missing a test skips, saying why.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../../support/run';

function which(command: string): string | undefined {
  for (const candidate of [`/usr/bin/${command}`, `/usr/local/bin/${command}`]) {
    try {
      execFileSync(candidate, ['--version'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // Next.
    }
  }
  return undefined;
}

export const PROMTOOL = which('promtool');
export const PROMETHEUS = which('prometheus');
export const MISSING_PROMETHEUS =
  "Debian's prometheus package is not installed (apt-get install -y prometheus; .ci/run does)";

export const RULES_DIR = join(PROJECT_ROOT, 'deploy', 'observability', 'prometheus');
export const RULES_FILE = join(RULES_DIR, 'rules.yml');
export const RULES_TEST_FILE = join(RULES_DIR, 'rules.test.yml');

export interface AlertRule {
  alert: string;
  expr: string;
  annotations?: Record<string, string>;
}

/** The alerts of a rules file (default: the project's). */
export function alertRules(file = RULES_FILE): AlertRule[] {
  const rules = parse(readFileSync(file, 'utf8')) as { groups: { rules: (AlertRule & { record?: string })[] }[] };
  return rules.groups.flatMap((group) => group.rules).filter((rule) => rule.alert !== undefined);
}

export interface RunningPrometheus {
  url: string;
  /** Everything it printed (it runs at log level warn). */
  output: () => string;
  /** An instant query; throws with Prometheus's error (a parse error, for one) unless it succeeds. */
  query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  close(): Promise<void>;
}

/**
 * A real Prometheus server on a loopback port with its own storage, scraping `jobs` (job name →
 * host:port targets) every `scrapeInterval` and evaluating `ruleFiles`.
 */
export async function startPrometheus(
  options: { jobs?: Record<string, string[]>; ruleFiles?: string[]; scrapeInterval?: string } = {},
): Promise<RunningPrometheus> {
  const { spawn } = await import('node:child_process');
  const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { stringify } = await import('yaml');
  const { freePort } = await import('../../../dev/ports');
  const dir = mkdtempSync(join(tmpdir(), 'rampflow-prometheus-'));
  const interval = options.scrapeInterval ?? '1s';
  const config = {
    global: { scrape_interval: interval, evaluation_interval: interval },
    rule_files: options.ruleFiles ?? [],
    scrape_configs: Object.entries(options.jobs ?? {}).map(([job, targets]) => ({
      job_name: job,
      static_configs: [{ targets }],
    })),
  };
  writeFileSync(join(dir, 'prometheus.yml'), stringify(config));
  const port = await freePort();
  const child = spawn(
    PROMETHEUS!,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<void>((done) => child.on('close', () => done()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ready = await fetch(`${url}/-/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill();
      throw new Error(`Prometheus did not become ready:\n${output}`);
    }
    await new Promise((wake) => setTimeout(wake, 100));
  }
  return {
    url,
    output: () => output,
    async query(expr) {
      const response = await fetch(`${url}/api/v1/query`, {
        method: 'POST',
        body: new URLSearchParams({ query: expr }),
      });
      const body = (await response.json()) as {
        status: string;
        error?: string;
        errorType?: string;
        data?: { resultType: string; result: unknown };
      };
      if (body.status !== 'success') throw new Error(`${body.errorType}: ${body.error} in ${expr}`);
      if (body.data!.resultType === 'scalar') return [{ metric: {}, value: body.data!.result as [number, string] }];
      return body.data!.result as { metric: Record<string, string>; value: [number, string] }[];
    },
    async close() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const PROMQL_WORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'offset',
  'bool',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression selects (Prometheus 2.42 has no parse endpoint, so: label
 * matchers, ranges, strings and grouping lists removed, then every identifier that is not a function
 * call or a keyword). Grafana's `$__range`-style variables are fine: they sit inside ranges.
 */
export function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*(\s*\()?/g)) {
    const word = match[0].replace(/\s*\($/, '');
    if (match[1] !== undefined || PROMQL_WORDS.has(word.toLowerCase())) continue;
    if (/^[0-9]/.exec(word) !== null) continue;
    names.add(word);
  }
  return [...names];
}

/** The names the rules record (`rampflow:...`). */
export function recordedNames(file = RULES_FILE): string[] {
  const rules = parse(readFileSync(file, 'utf8')) as { groups: { rules: { record?: string }[] }[] };
  return rules.groups.flatMap((group) => group.rules).flatMap((rule) => (rule.record ? [rule.record] : []));
}

/** Every expression of the rules file: recording rules' and alerts'. */
export function ruleExpressions(file = RULES_FILE): string[] {
  const rules = parse(readFileSync(file, 'utf8')) as { groups: { rules: { expr: string }[] }[] };
  return rules.groups.flatMap((group) => group.rules).map((rule) => rule.expr);
}
