/**
 * `rampflow versions`: the Worker Deployment's versions, which is current or ramping, and how many
 * workflows of each type still run on each; what an operator watches while an old version drains
 * (README, "Changing workflow code").
 */
import { Client, Connection } from '@temporalio/client';
import type { Command } from 'commander';
import { describeDeployment, type DeploymentReport } from '../client/deployment';
import { DeploymentEnvSchema, parseEnv, temporalTls, TemporalEnvSchema } from '../config/env';
import { printJson } from './client-session';

export function registerVersionsCommand(program: Command): void {
  program
    .command('versions')
    .description('list the worker deployment\'s versions (TEMPORAL_DEPLOYMENT_NAME): current, ramping, and how many workflows of each type still run on each')
    .option('--deployment <name>', 'the deployment (default: TEMPORAL_DEPLOYMENT_NAME, or rampflow)')
    .option('--json', 'print the report as JSON')
    .action(async (options: { deployment?: string; json?: boolean }) => {
      const env = parseEnv(TemporalEnvSchema.extend(DeploymentEnvSchema.pick({ TEMPORAL_DEPLOYMENT_NAME: true }).shape));
      const connection = await Connection.connect({
        address: env.TEMPORAL_ADDRESS,
        tls: temporalTls(env),
        ...(env.TEMPORAL_API_KEY ? { apiKey: env.TEMPORAL_API_KEY } : {}),
      });
      try {
        const report = await describeDeployment(new Client({ connection, namespace: env.TEMPORAL_NAMESPACE }), options.deployment ?? env.TEMPORAL_DEPLOYMENT_NAME);
        if (options.json) printJson(report);
        else process.stdout.write(formatDeploymentReport(report));
      } finally {
        await connection.close();
      }
    });
}

export function formatDeploymentReport(report: DeploymentReport): string {
  const ramping = report.ramping ? `${report.ramping.buildId} at ${report.ramping.percentage}%` : 'none';
  const lines = [`deployment ${report.deploymentName}: current ${report.current ?? 'none (unversioned workers)'}, ramping ${ramping}`];
  if (report.versions.length === 0) return `${lines[0]}\nno versions yet: no versioned worker has polled this deployment\n`;
  const rows = report.versions.map((version) => [
    version.buildId,
    version.status,
    version.createdAt ?? '',
    String(version.pinned),
    Object.entries(version.running).map(([type, count]) => `${type} ${count}`).join(', ') || '-',
  ]);
  const table = [['BUILD ID', 'STATUS', 'CREATED', 'PINNED', 'LAST RAN HERE (running, by type)'], ...rows];
  const widths = table[0]!.map((_, column) => Math.max(...table.map((row) => row[column]!.length)));
  for (const row of table) lines.push(row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '));
  return `${lines.join('\n')}\n`;
}
