/**
 * The operator's view of a Worker Deployment (docs/deploying/versioning.md): which version is
 * current or ramping, and how many workflows of each type still run on each version, so an old
 * version's workers are retired only once nothing runs on it. Also the one call that makes a version
 * current, which the dev stack and the tests use (production does it by hand, with the CLI).
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type * as workflows from '../workflows';

/** Every workflow type the rampflow worker runs; the type check below fails when one is added and not listed. */
export const WORKFLOW_TYPES = [
  'customerJourney',
  'depositLifecycle',
  'rampEvent',
  'reconcileWithService',
  'payout',
  'partnerEventDelivery',
] as const;
type Unlisted = Exclude<keyof typeof workflows, (typeof WORKFLOW_TYPES)[number]>;
const everyTypeListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyTypeListed;

export type WorkflowTypeName = (typeof WORKFLOW_TYPES)[number];

export type VersionStatus = 'CURRENT' | 'RAMPING' | 'DRAINING' | 'DRAINED' | 'INACTIVE' | 'CREATED' | 'UNSPECIFIED';

export interface DeploymentVersionReport {
  buildId: string;
  status: VersionStatus;
  /** When the server first saw a worker of this version (ISO 8601). */
  createdAt?: string;
  /** Running workflows whose last workflow task ran on this version, by type (types with none left out). */
  running: Partial<Record<WorkflowTypeName, number>>;
  /**
   * How many of them are PINNED to this version. An old version's workers can be retired once this is
   * 0 (the server then says DRAINED): AUTO_UPGRADE journeys counted in `running` move to the current
   * version at their next workflow task, whichever worker ran their last one.
   */
  pinned: number;
}

export interface DeploymentReport {
  deploymentName: string;
  current?: string;
  ramping?: { buildId: string; percentage: number };
  versions: DeploymentVersionReport[];
}

// Build IDs and deployment names go into visibility queries: only characters that need no quoting.
const SAFE_NAME = /^[A-Za-z0-9._-]+$/;

function safe(what: string, value: string): string {
  if (!SAFE_NAME.test(value))
    throw new Error(`${what} '${value}' has characters rampflow does not put in a visibility query`);
  return value;
}

const { WorkerDeploymentVersionStatus } = temporal.api.enums.v1;
const GRPC_NOT_FOUND = 5;
const GRPC_FAILED_PRECONDITION = 9;

function statusName(status: temporal.api.enums.v1.WorkerDeploymentVersionStatus | null | undefined): VersionStatus {
  const name = WorkerDeploymentVersionStatus[status ?? 0] ?? 'WORKER_DEPLOYMENT_VERSION_STATUS_UNSPECIFIED';
  return name.replace('WORKER_DEPLOYMENT_VERSION_STATUS_', '') as VersionStatus;
}

function isoOf(timestamp: { seconds?: { toString(): string } | number | null } | null | undefined): string | undefined {
  if (!timestamp?.seconds) return undefined;
  return new Date(Number(timestamp.seconds.toString()) * 1000).toISOString();
}

/**
 * The deployment's versions, newest first, with what still runs on each. Counts come from visibility
 * (`TemporalWorkerDeploymentVersion`, which the server sets to `<deployment>:<buildId>` at every
 * completed workflow task), so they lag the truth by a second or so; one count per version and type.
 */
export async function describeDeployment(client: Client, deploymentName: string): Promise<DeploymentReport> {
  const { workerDeploymentInfo: info } = await client.workflowService
    .describeWorkerDeployment({
      namespace: client.options.namespace,
      deploymentName: safe('deployment name', deploymentName),
    })
    .catch((error: unknown) => {
      if ((error as { code?: number }).code !== GRPC_NOT_FOUND) throw error;
      throw new Error(
        `no worker deployment '${deploymentName}' in namespace ${client.options.namespace}: no versioned worker of it has polled yet`,
        { cause: error },
      );
    });
  const routing = info?.routingConfig;
  const versions: DeploymentVersionReport[] = [];
  for (const summary of info?.versionSummaries ?? []) {
    const buildId = summary.deploymentVersion?.buildId;
    if (!buildId) continue;
    const runningOnVersion = `TemporalWorkerDeploymentVersion = '${deploymentName}:${safe('build ID', buildId)}' AND ExecutionStatus = 'Running'`;
    const running: DeploymentVersionReport['running'] = {};
    for (const type of WORKFLOW_TYPES) {
      const { count } = await client.workflow.count(`${runningOnVersion} AND WorkflowType = '${type}'`);
      if (count > 0) running[type] = count;
    }
    const { count: pinned } = await client.workflow.count(
      `${runningOnVersion} AND TemporalWorkflowVersioningBehavior = 'Pinned'`,
    );
    const createdAt = isoOf(summary.createTime);
    versions.push({
      buildId,
      status: statusName(summary.status),
      ...(createdAt ? { createdAt } : {}),
      running,
      pinned,
    });
  }
  versions.sort((a, b) => (b.createdAt ?? '').localeCompare(a.createdAt ?? ''));
  const current = routing?.currentDeploymentVersion?.buildId;
  const ramping = routing?.rampingDeploymentVersion?.buildId;
  return {
    deploymentName,
    ...(current ? { current } : {}),
    ...(ramping ? { ramping: { buildId: ramping, percentage: routing?.rampingVersionPercentage ?? 0 } } : {}),
    versions,
  };
}

/**
 * The deployment's current build ID, undefined when it has none (or does not exist yet: the server
 * creates it at a versioned worker's first poll). Takes the bare service so a worker's own native
 * connection can ask.
 */
export async function currentBuildId(
  service: Pick<Client['workflowService'], 'describeWorkerDeployment'>,
  namespace: string,
  deploymentName: string,
): Promise<string | undefined> {
  try {
    const { workerDeploymentInfo } = await service.describeWorkerDeployment({ namespace, deploymentName });
    return workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId || undefined;
  } catch (error) {
    if ((error as { code?: number }).code === GRPC_NOT_FOUND) return undefined;
    throw error;
  }
}

/**
 * Makes a version current: new workflows start on it, AUTO_UPGRADE ones move to it. The server refuses
 * while no worker of that version has polled yet, so this waits for one (up to `timeoutMs`).
 */
export async function setCurrentVersion(
  client: Client,
  version: { deploymentName: string; buildId: string },
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await client.workflowService.setWorkerDeploymentCurrentVersion({
        namespace: client.options.namespace,
        deploymentName: version.deploymentName,
        buildId: version.buildId,
        identity: client.options.identity ?? 'rampflow',
      });
      return;
    } catch (error) {
      // NOT_FOUND (the deployment or version is not known yet) or FAILED_PRECONDITION (no pollers yet).
      const code = (error as { code?: number }).code;
      if ((code !== GRPC_NOT_FOUND && code !== GRPC_FAILED_PRECONDITION) || Date.now() > deadline) throw error;
      await new Promise((wake) => setTimeout(wake, 250));
    }
  }
}

/** The PINNED workflow types that park for an operator (the others end instead of parking: workflows/versioning-behaviours.ts). */
export const PARKING_PINNED_TYPES = ['depositLifecycle', 'payout'] as const satisfies readonly WorkflowTypeName[];

export interface ParkedMove {
  workflowId: string;
  workflowType: string;
  /** The build ID it was pinned to. */
  from: string;
}

/**
 * The running workflows parked in NEEDS_ATTENTION that are PINNED to a version neither current nor
 * ramping: what keeps an old version's workers up while nobody acts on them (a deposit may wait
 * months for an operator).
 */
export async function listParkedOnOldVersions(
  client: Client,
  deploymentName: string,
): Promise<{ current: string; parked: ParkedMove[] }> {
  const report = await describeDeployment(client, deploymentName);
  if (!report.current)
    throw new Error(
      `deployment '${deploymentName}' has no current version: make one current first (temporal worker deployment set-current-version)`,
    );
  const keep = new Set([report.current, ...(report.ramping ? [report.ramping.buildId] : [])]);
  const parked: ParkedMove[] = [];
  for (const version of report.versions) {
    if (keep.has(version.buildId)) continue;
    const query = [
      `TemporalWorkerDeploymentVersion = '${deploymentName}:${safe('build ID', version.buildId)}'`,
      `TemporalWorkflowVersioningBehavior = 'Pinned'`,
      `ExecutionStatus = 'Running'`,
      `RampStage = 'NEEDS_ATTENTION'`,
      `WorkflowType IN (${PARKING_PINNED_TYPES.map((type) => `'${type}'`).join(', ')})`,
    ].join(' AND ');
    // Raw pages: ids and types are all it needs, so it decodes no memo and needs no payload key.
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await client.workflowService.listWorkflowExecutions({
        namespace: client.options.namespace,
        query,
        ...(nextPageToken ? { nextPageToken } : {}),
      });
      for (const execution of page.executions) {
        const workflowId = execution.execution?.workflowId;
        if (workflowId) parked.push({ workflowId, workflowType: execution.type?.name ?? '', from: version.buildId });
      }
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
  }
  return { current: report.current, parked };
}

/**
 * Moves one parked workflow off its old version: a versioning override of AUTO_UPGRADE, so its next
 * workflow task (an operator's retry or cancel, a late event, a parked look at the service) runs on
 * whatever version is current then, and the old version drains. Nothing in the workflow's code or
 * history changes (no command, no patch); the price is that the current code must replay the history
 * it recorded on the old version, which is what the replay corpus and `patched()` guard for every
 * type (docs/deploying/versioning.md, "Parked pinned workflows").
 */
export async function moveToCurrentVersion(client: Client, workflowId: string): Promise<void> {
  await client.workflowService.updateWorkflowExecutionOptions({
    namespace: client.options.namespace,
    workflowExecution: { workflowId },
    workflowExecutionOptions: { versioningOverride: { autoUpgrade: true } },
    updateMask: { paths: ['versioning_override'] },
  });
}
