/**
 * The worker process (`rampflow worker`, `npm run worker`): configuration from the environment,
 * Prometheus metrics from the Temporal runtime, structured logs, and a graceful shutdown on SIGINT
 * or SIGTERM that lets in-flight activities finish.
 */
import { getHeapStatistics } from 'node:v8';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import { NativeConnection, Runtime } from '@temporalio/worker';
import type { Logger } from 'pino';
import { currentBuildId } from '../client/deployment';
import { rampflowDataConverter } from '../codec';
import {
  DeploymentEnvSchema,
  depositTimingsFromEnv,
  parseEnv,
  PartnerEventsEnvSchema,
  PayloadEnvSchema,
  RampEnvSchema,
  temporalTls,
  TemporalEnvSchema,
  WorkerEnvSchema,
} from '../config/env';
import { checkEndpointVariables, PartnerEventEndpointsEnvSchema } from '../partner-events/endpoints-env';
import { RampClient } from '../ramp';
import { loadAssumptionsFile } from '../ramp/assumptions-file';
import { createLogger } from '../config/logger';
import { CORE_LINES_FORWARDED, sdkLogger } from './logging';
import { workerMemoryPlan } from './memory-budget';
import {
  cgroupMemoryLimitBytes,
  prometheusTelemetry,
  reportProcessMemory,
  serviceAttemptMetrics,
} from './service-metrics';
import { resolveWorkflowBundle } from './workflow-bundle';
import { versionString } from './versioning';
import { partnerEventsFromEnv } from './partner-event-wiring';
import { serviceTaskQueueOf } from '../workflows/common/calls';
import { createRampflowWorker, SHUTDOWN_GRACE_MS } from './worker';
import { armStopDeadline, STOP_MARGIN_MS } from './stop-deadline';
import { checkNamespaceSearchAttributes, type CommandTarget } from './namespace-check';

/** The signals that stop the worker: the SDK drains it, and the stop deadline bounds the drain. */
const SHUTDOWN_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

export async function runWorkerProcess(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  // One parse of every section, so a bad environment is reported whole, one line per variable.
  const config = parseEnv(
    TemporalEnvSchema.extend(RampEnvSchema.shape)
      .extend(WorkerEnvSchema.shape)
      .extend(DeploymentEnvSchema.shape)
      .extend(PayloadEnvSchema.shape)
      .extend(PartnerEventsEnvSchema.shape)
      .extend(PartnerEventEndpointsEnvSchema.shape)
      .superRefine(checkEndpointVariables),
    env,
  );
  const logger = createLogger('rampflow-worker', config.LOG_LEVEL);
  // Checked before anything connects, so a bad file stops the worker at start.
  const assumptions = loadAssumptionsFile(config.RAMP_ASSUMPTIONS_FILE);

  Runtime.install({
    logger: sdkLogger(logger),
    // The SDK stops the worker on these signals: polling ends, in-flight tasks get shutdownGraceTime.
    shutdownSignals: [...SHUTDOWN_SIGNALS],
    telemetryOptions: {
      ...CORE_LINES_FORWARDED,
      ...(config.WORKER_METRICS_PORT ? prometheusTelemetry(`0.0.0.0:${config.WORKER_METRICS_PORT}`) : {}),
    },
  });
  const meter = Runtime.instance().metricMeter;
  const memory = workerMemoryPlan(config.WORKER_MEMORY_MB);
  warnOfMemoryMismatch(memory.budgetMiB, memory.heapLimitMiB, logger);
  const stopMemoryReports = config.WORKER_METRICS_PORT ? reportProcessMemory(meter, memory.budgetMiB * MIB) : () => {};

  const connection = await NativeConnection.connect({
    address: config.TEMPORAL_ADDRESS,
    tls: temporalTls(config),
    ...(config.TEMPORAL_API_KEY ? { apiKey: config.TEMPORAL_API_KEY } : {}),
  });
  try {
    await requireRampSearchAttributes(
      connection,
      { address: config.TEMPORAL_ADDRESS, namespace: config.TEMPORAL_NAMESPACE },
      logger,
    );
  } catch (error) {
    await connection.close();
    throw error;
  }
  // The partner's limit is shared: the worker keeps to its share of it, worked out with the others (workers/partner-rate.ts).
  const maxCallsPerSecond = config.RAMP_MAX_CALLS_PER_SECOND;
  const ramp = new RampClient({
    baseUrl: config.RAMP_BASE_URL,
    apiKey: config.RAMP_API_KEY,
    apiSecret: config.RAMP_API_SECRET,
    assumptions,
    onAttempt: serviceAttemptMetrics(meter),
    ...(maxCallsPerSecond !== undefined ? { maxCallsPerSecond } : {}),
  });
  const partnerEvents = await partnerEventsFromEnv(config, config.RAMPFLOW_PAYLOAD_KEYS);
  try {
    const bundle = await resolveWorkflowBundle({
      production: env.NODE_ENV === 'production',
      ...(config.WORKER_WORKFLOW_BUNDLE ? { prebuiltPath: config.WORKER_WORKFLOW_BUNDLE, named: true } : {}),
    });
    if (bundle.origin !== 'prebuilt')
      logger.warn(
        { reason: bundle.origin },
        'bundled the workflows at start (development only; `npm run build` prebuilds them)',
      );
    const deploymentVersion = config.TEMPORAL_WORKER_VERSIONING
      ? { deploymentName: config.TEMPORAL_DEPLOYMENT_NAME, buildId: config.TEMPORAL_WORKER_BUILD_ID ?? bundle.buildId }
      : undefined;
    const worker = await createRampflowWorker({
      connection,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      ramp,
      dataConverter: rampflowDataConverter(config.RAMPFLOW_PAYLOAD_KEYS),
      workflowBundle: { codePath: bundle.codePath },
      ...(deploymentVersion ? { deploymentVersion } : {}),
      maxCachedWorkflows: config.WORKER_MAX_CACHED_WORKFLOWS ?? memory.maxCachedWorkflows,
      depositTimings: depositTimingsFromEnv(config),
      partnerEvents: partnerEvents.wiring,
      ...(maxCallsPerSecond !== undefined ? { maxCallsPerSecond } : {}),
      ...(config.RAMP_REFUSED_CREATE_PARK_AFTER_SECONDS !== undefined
        ? { refusedCreateParkAfterMs: config.RAMP_REFUSED_CREATE_PARK_AFTER_SECONDS * 1000 }
        : {}),
    });
    logger.info(
      {
        address: config.TEMPORAL_ADDRESS,
        namespace: config.TEMPORAL_NAMESPACE,
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        serviceTaskQueue: serviceTaskQueueOf(config.TEMPORAL_TASK_QUEUE),
        maxCallsPerSecond: maxCallsPerSecond ?? 'unlimited',
        rampBaseUrl: config.RAMP_BASE_URL,
        deployment: deploymentVersion ? versionString(deploymentVersion) : 'unversioned',
        bundleBuildId: bundle.buildId,
        metrics: config.WORKER_METRICS_PORT ? `http://0.0.0.0:${config.WORKER_METRICS_PORT}/metrics` : 'off',
        // What the budget became, as the SDK and V8 hold it (docs/deploying/sizing.md).
        memoryBudgetMiB: memory.budgetMiB,
        maxCachedWorkflows: worker.workers[0].options.maxCachedWorkflows,
        heapLimitMiB: Math.round(getHeapStatistics().heap_size_limit / MIB),
      },
      'worker started',
    );
    // Read before the shared rate: an operator who still sets it should know it no longer divides anything.
    if (env.RAMP_WORKER_PROCESSES !== undefined)
      logger.warn(
        'RAMP_WORKER_PROCESSES is no longer read: the workers share RAMP_MAX_CALLS_PER_SECOND through the Temporal server, whatever their number (docs/deploying/rate-limits.md)',
      );
    // A drain that outlives the grace time by STOP_MARGIN_MS is stuck: the process exits 1 (workers/stop-deadline.ts).
    const disarm = armStopDeadline({
      signals: SHUTDOWN_SIGNALS,
      afterMs: SHUTDOWN_GRACE_MS + STOP_MARGIN_MS,
      onStalled: () => {
        logger.error(
          { afterSeconds: (SHUTDOWN_GRACE_MS + STOP_MARGIN_MS) / 1000 },
          'the worker did not stop after the shutdown signal: exiting; Temporal retries what it held after its timeouts',
        );
        process.exit(1);
      },
    });
    const running = worker.run().finally(disarm);
    if (deploymentVersion) await warnUnlessCurrent(connection, config.TEMPORAL_NAMESPACE, deploymentVersion, logger);
    await running;
    logger.info('worker stopped');
  } finally {
    await partnerEvents.close();
    stopMemoryReports();
    await ramp.close();
    await connection.close();
  }
}

const MIB = 1024 * 1024;
const YOUNG_GENERATION_ALLOWANCE_MIB = 64;

/**
 * The budget only holds if the heap limit follows it (set when Node starts: bin/rampflow.cjs, the
 * image's entry point) and the container gives the worker as much: say so at start when not.
 */
function warnOfMemoryMismatch(budgetMiB: number, plannedHeapMiB: number, logger: Logger): void {
  const heapMiB = getHeapStatistics().heap_size_limit / MIB;
  // V8's limit adds the young generation (48 MiB on Node 20's defaults) to the old space the flag sets.
  if (heapMiB > plannedHeapMiB + YOUNG_GENERATION_ALLOWANCE_MIB) {
    logger.warn(
      { heapLimitMiB: Math.round(heapMiB), plannedHeapLimitMiB: plannedHeapMiB },
      `the V8 heap limit is above what WORKER_MEMORY_MB allows: start the worker with --max-old-space-size=${plannedHeapMiB} (rampflow worker and the image do)`,
    );
  }
  const containerBytes = cgroupMemoryLimitBytes();
  if (containerBytes !== undefined && containerBytes < budgetMiB * MIB) {
    logger.warn(
      { containerMiB: Math.floor(containerBytes / MIB), memoryBudgetMiB: budgetMiB },
      "the container's memory limit is below WORKER_MEMORY_MB: the worker may be killed before it reaches its budget; lower WORKER_MEMORY_MB to the container's limit",
    );
  }
}

/**
 * Stops the start on a namespace whose search attributes the workflows cannot set (workers/namespace-check.ts):
 * the error is the process's one line on stderr. A namespace the worker may not inspect is only warned of.
 */
async function requireRampSearchAttributes(
  connection: NativeConnection,
  target: Required<CommandTarget>,
  logger: Logger,
): Promise<void> {
  const check = await checkNamespaceSearchAttributes(connection, target);
  if (check.ok === false) throw new Error(check.problem);
  if (check.ok === 'unchecked')
    logger.warn(
      { namespace: target.namespace, reason: check.reason },
      "could not list the namespace's search attributes: if one of docs/reference/search-attributes.md is missing, every workflow task fails",
    );
}

/**
 * A versioned worker gets no new workflows until its version is current, which production sets by
 * hand (docs/deploying/versioning.md): say so at start, with the command, rather than sit idle.
 */
async function warnUnlessCurrent(
  connection: NativeConnection,
  namespace: string,
  version: WorkerDeploymentVersion,
  logger: Logger,
): Promise<void> {
  try {
    const current = await currentBuildId(connection.workflowService, namespace, version.deploymentName);
    if (current === version.buildId) return;
    logger.warn(
      { deployment: version.deploymentName, buildId: version.buildId, current: current ?? 'none' },
      `this worker's version is not current: it runs only workflows pinned to it until \`temporal worker deployment set-current-version --deployment-name ${version.deploymentName} --build-id ${version.buildId}\` (or a ramp) makes it current`,
    );
  } catch (error) {
    logger.warn(
      { error: error instanceof Error ? error.message : String(error) },
      "could not ask whether this worker's version is current",
    );
  }
}
