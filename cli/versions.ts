/**
 * `rampflow versions`: the Worker Deployment's versions, which is current or ramping, and how many
 * workflows of each type still run on each; what an operator watches while an old version drains
 * (docs/deploying/versioning.md). With `--hand-over`, the move of every running journey to a new major
 * version's task queue ("Major versions").
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
import { DEFAULT_BULK_CONCURRENCY } from '../client';
import { concurrency, runBulkCommand } from './bulk';
import { printJson, withRampflowClient } from './client-session';

interface VersionsOptions {
  deployment?: string;
  json?: boolean;
  moveParked?: boolean;
  handOver?: boolean;
  toTaskQueue?: string;
  dryRun?: boolean;
  concurrency?: number;
}

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
    .option(
      '--hand-over',
      "instead of the report: hand every running customer journey on TEMPORAL_TASK_QUEUE over to --to-task-queue (a new major version's workers), where each continues as new carrying its state; run it again until it lists none",
    )
    .option('--to-task-queue <queue>', 'with --hand-over: the task queue the journeys move to, e.g. rampflow-v1')
    .option('--dry-run', 'with --move-parked or --hand-over: list them, change nothing')
    .option(
      '--concurrency <n>',
      `with --hand-over: journeys signalled at once (default ${DEFAULT_BULK_CONCURRENCY})`,
      concurrency,
    )
    .action(async (options: VersionsOptions) => {
      if (handOverAsked(options)) return handOver(options.toTaskQueue!, options);
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

/** Whether the command hands the journeys over; refuses the flags that make no sense with (or without) it. */
function handOverAsked(options: VersionsOptions): boolean {
  if (!options.handOver) {
    if (options.toTaskQueue !== undefined) throw new Error('--to-task-queue needs --hand-over');
    if (options.concurrency !== undefined) throw new Error('--concurrency needs --hand-over');
    return false;
  }
  if (options.toTaskQueue === undefined) throw new Error('--hand-over needs --to-task-queue <queue>');
  if (options.moveParked) throw new Error('give either --hand-over or --move-parked, not both');
  if (options.deployment !== undefined) throw new Error('--deployment does not apply to --hand-over');
  return true;
}

/**
 * Signals every running journey on this deployment's task queue (TEMPORAL_TASK_QUEUE) to hand over to
 * `toTaskQueue`, with a progress line on stderr and a summary; exits 1 when any signal failed. The
 * client refuses a malformed target or the queue itself before anything is listed.
 */
async function handOver(toTaskQueue: string, options: VersionsOptions): Promise<void> {
  await withRampflowClient((rampflow) =>
    runBulkCommand(
      { verb: 'hand over', noun: 'journey', set: `running on ${rampflow.taskQueue} to ${toTaskQueue}` },
      {
        ...(options.dryRun ? { dryRun: true } : {}),
        ...(options.json ? { json: true } : {}),
        ...(options.concurrency ? { concurrency: options.concurrency } : {}),
      },
      (bulk) => rampflow.handOverAllJourneys({ toTaskQueue }, bulk),
    ),
  );
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
