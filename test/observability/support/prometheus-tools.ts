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
export const MISSING_PROMETHEUS = 'Debian\'s prometheus package is not installed (apt-get install -y prometheus; .ci/run does)';

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
