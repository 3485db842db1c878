/**
 * `rampflow probe [--create] [--webhook-url <url>] [--json]`: checks, against the service the worker
 * would use (RAMP_BASE_URL, RAMP_API_KEY, RAMP_API_SECRET, RAMP_ASSUMPTIONS_FILE), each assumption
 * rampflow makes where the interface is silent (ramp/probe/). Exit code 0: every line held (or could
 * not be checked); 1: something differs; 2: the probe could not talk to the service.
 */
import type { Command } from 'commander';
import { parseEnv, ReconcileEnvSchema } from '../config/env';
import { loadAssumptionsFile } from '../ramp/assumptions-file';
import { readRampEnvironment } from '../ramp/environment';
import { formatProbeReport, ProbeCannotRun, runProbe } from '../ramp/probe';

interface ProbeCommandOptions {
  create: boolean;
  webhookUrl?: string;
  json: boolean;
}

export const PROBE_EXIT = { held: 0, differs: 1, cannotRun: 2 } as const;

async function probe(options: ProbeCommandOptions): Promise<void> {
  const environment = readRampEnvironment(process.env);
  if (!environment.ok) throw new Error(environment.problems.join('\n'));
  const assumptions = loadAssumptionsFile(environment.value.RAMP_ASSUMPTIONS_FILE);
  const { RECONCILE_LIST_ORDER } = parseEnv(ReconcileEnvSchema);
  const base = new URL(environment.value.RAMP_BASE_URL);
  const service = `${base.origin}${base.pathname.replace(/\/+$/, '')}`;
  if (options.create) {
    // Said before anything is sent: these records stay at the service.
    process.stderr.write(
      `rampflow probe: --create will create two test customers (externalId rampflow-probe-...) at ${service}; use it against a sandbox deployment only\n`,
    );
  }
  try {
    const report = await runProbe({
      baseUrl: environment.value.RAMP_BASE_URL,
      apiKey: environment.value.RAMP_API_KEY,
      apiSecret: environment.value.RAMP_API_SECRET,
      assumptions,
      reconcileListOrder: RECONCILE_LIST_ORDER,
      create: options.create,
      ...(options.webhookUrl !== undefined ? { webhookUrl: options.webhookUrl } : {}),
    });
    process.stdout.write(
      options.json
        ? `${JSON.stringify({ service, held: report.held, lines: report.lines, overrides: report.overrides }, null, 2)}\n`
        : formatProbeReport(report, service),
    );
    process.exitCode = report.held ? PROBE_EXIT.held : PROBE_EXIT.differs;
  } catch (error) {
    if (!(error instanceof ProbeCannotRun)) throw error;
    process.stderr.write(`rampflow probe: ${error.message}\n`);
    process.exitCode = PROBE_EXIT.cannotRun;
  }
}

export function registerProbeCommand(program: Command): void {
  program
    .command('probe')
    .description(
      'check, against the service in RAMP_BASE_URL, each assumption rampflow makes where the interface is silent, and print the RAMP_ASSUMPTIONS_FILE keys for those that differ',
    )
    .option('--create', 'also create two test customers to learn the list order (sandbox deployments only)', false)
    .option('--webhook-url <url>', 'the callback URL rampflow would register, to check that it is reachable')
    .option('--json', 'print the report as JSON, for a deployment pipeline', false)
    .action(probe);
}
