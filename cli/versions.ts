/**
 * `rampflow versions`: the Worker Deployment's versions, which is current or ramping, and how many
 * workflows of each type still run on each; what an operator watches while an old version drains
 * (docs/deploying/versioning.md).
 */
import { Client, Connection } from '@temporalio/client';
import type { Command } from 'commander';
import {
  describeDeployment,
  listParkedOnOldVersions,
  moveToCurrentVersion,
  type DeploymentReport,
  type ParkedMove,
} from '../client/deployment';
import { DeploymentEnvSchema, parseEnv, temporalTls, TemporalEnvSchema } from '../config/env';
import { printJson } from './client-session';

export function registerVersionsCommand(program: Command): void {
  program
    .command('versions')
    .description(
      "list the worker deployment's versions (TEMPORAL_DEPLOYMENT_NAME): current, ramping, and how many workflows of each type still run on each",
    )
    .option('--deployment <name>', 'the deployment (default: TEMPORAL_DEPLOYMENT_NAME, or rampflow)')
    .option('--json', 'print the report as JSON')
    .option(
      '--move-parked',
      'first move the deposits and payouts parked (NEEDS_ATTENTION) while pinned to an old version to the current one (a versioning override of AUTO_UPGRADE), so that version can drain',
    )
    .option('--dry-run', 'with --move-parked: list them, move nothing')
    .action(async (options: { deployment?: string; json?: boolean; moveParked?: boolean; dryRun?: boolean }) => {
      const env = parseEnv(
        TemporalEnvSchema.extend(DeploymentEnvSchema.pick({ TEMPORAL_DEPLOYMENT_NAME: true }).shape),
      );
      const connection = await Connection.connect({
        address: env.TEMPORAL_ADDRESS,
        tls: temporalTls(env),
        ...(env.TEMPORAL_API_KEY ? { apiKey: env.TEMPORAL_API_KEY } : {}),
      });
      try {
        const client = new Client({ connection, namespace: env.TEMPORAL_NAMESPACE });
        const deploymentName = options.deployment ?? env.TEMPORAL_DEPLOYMENT_NAME;
        const moved = options.moveParked
          ? await moveParked(client, deploymentName, options.dryRun ?? false)
          : undefined;
        const report = await describeDeployment(client, deploymentName);
        if (options.json) printJson(moved ? { ...report, movedParked: moved } : report);
        else
          process.stdout.write(
            `${moved ? formatMoves(moved, options.dryRun ?? false) : ''}${formatDeploymentReport(report)}`,
          );
      } finally {
        await connection.close();
      }
    });
}

/**
 * Moves what is parked on old versions, one workflow at a time; one that finished or was moved in the
 * meantime is simply listed as moved (the call is idempotent). Run it after each deploy, and again
 * while an old version still shows workflows pinned to it: a deposit that parks on the old version
 * after the first run is moved by the next.
 */
async function moveParked(client: Client, deploymentName: string, dryRun: boolean): Promise<ParkedMove[]> {
  const { parked } = await listParkedOnOldVersions(client, deploymentName);
  if (!dryRun) for (const workflow of parked) await moveToCurrentVersion(client, workflow.workflowId);
  return parked;
}

function formatMoves(moves: ParkedMove[], dryRun: boolean): string {
  if (moves.length === 0) return 'nothing parked on an old version\n';
  const verb = dryRun ? 'would move' : 'moved';
  return `${moves.map((move) => `${verb} ${move.workflowId} (${move.workflowType}, parked on ${move.from}) to the current version`).join('\n')}\n`;
}

export function formatDeploymentReport(report: DeploymentReport): string {
  const ramping = report.ramping ? `${report.ramping.buildId} at ${report.ramping.percentage}%` : 'none';
  const lines = [
    `deployment ${report.deploymentName}: current ${report.current ?? 'none (unversioned workers)'}, ramping ${ramping}`,
  ];
  if (report.versions.length === 0)
    return `${lines[0]}\nno versions yet: no versioned worker has polled this deployment\n`;
  const rows = report.versions.map((version) => [
    version.buildId,
    version.status,
    version.createdAt ?? '',
    String(version.pinned),
    Object.entries(version.running)
      .map(([type, count]) => `${type} ${count}`)
      .join(', ') || '-',
  ]);
  const table = [['BUILD ID', 'STATUS', 'CREATED', 'PINNED', 'LAST RAN HERE (running, by type)'], ...rows];
  const widths = table[0]!.map((_, column) => Math.max(...table.map((row) => row[column]!.length)));
  for (const row of table)
    lines.push(row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '));
  return `${lines.join('\n')}\n`;
}
