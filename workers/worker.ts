/**
 * Builds the rampflow worker: the journey, deposit, ramp-event and reconciliation workflows, and their
 * activities bound to one signed client. Used by the worker process, the dev stack, the tests and the benchmarks.
 */
import { join } from 'node:path';
import type { DataConverter, WorkerDeploymentVersion } from '@temporalio/common';
import { NativeConnection, Runtime, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { attachmentStoreFromEnv, type AttachmentStore } from '../attachments';
import { FAILURE_CONVERTER_PATH } from '../codec/data-converter';
import { createEventRoutingActivities, createExitAccountActivities, createPayoutActivities, createRampActivities, createReconcileActivities } from '../activities';
import { createCustomerJourneyLookupActivities } from '../activities/customer-journey-lookup';
import { createDepositDeliveryActivities } from '../activities/deposit-delivery';
import { createPartnerEventActivities, type PartnerEventWiring } from '../activities/partner-event-activities';
import { DEFAULT_OUTCOME_UNKNOWN_RETRY_DELAY_MS, DEFAULT_REFUSED_CREATE_PARK_AFTER_MS, type FailureOptions } from '../activities/failures';
import { OUTAGE_CAUSES, ServiceHealth } from '../activities/service-health';
import { METRICS } from '../observability/metric-catalogue';
import type { RampClient } from '../ramp';
import type { DepositTimings } from '../workflows/deposit-input';
import { workerDeploymentOptions } from './versioning';

export const WORKFLOWS_PATH = join(__dirname, '..', 'workflows', 'index.ts');

/** What every workflow bundle is built from: the workflows, and the failure converter that runs beside them. */
export const WORKFLOW_BUNDLE_PATHS = { workflowsPath: WORKFLOWS_PATH, failureConverterPath: FAILURE_CONVERTER_PATH };

export interface RampflowWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  ramp: RampClient;
  /** codec/'s `rampflowDataConverter`: the same on every connection, or payloads cannot be read back. */
  dataConverter: DataConverter;
  /** A pre-built workflow bundle (tests and benchmarks build one and share it); bundled from source otherwise. */
  workflowBundle?: WorkflowBundleOption;
  /** How long in-flight activities may run on after a shutdown signal. */
  shutdownGraceTime?: string;
  identity?: string;
  /** Where submitted documents are read from (attachments/); RAMPFLOW_ATTACHMENTS_DIR's folder when omitted. */
  attachmentStore?: AttachmentStore;
  /**
   * The settle delay: how long after a create left (the service may hold it that long before acting)
   * a retry waits before it looks the record up and creates again (activities/creates.ts). 60 s by default.
   */
  outcomeUnknownRetryDelayMs?: number;
  /** How long a create the service refuses (FAILED) is retried before its workflow parks as `Refused` (activities/creates.ts). An hour by default. */
  refusedCreateParkAfterMs?: number;
  /** WORKER_MAX_CACHED_WORKFLOWS (config/env.ts); the SDK's default when undefined. */
  maxCachedWorkflows?: number;
  /** Timings of the deposit workflows this worker's activities start (production defaults when undefined). */
  depositTimings?: Partial<DepositTimings>;
  /** Where the worker reports an outage of the service (a new monitor on the SDK's logger and meter by default). */
  serviceHealth?: ServiceHealth;
  /** The Worker Deployment version this worker joins (workers/versioning.ts); unversioned when undefined. */
  deploymentVersion?: WorkerDeploymentVersion;
  /** The partner event store and endpoints (activities/partner-event-activities.ts); partner events are off without them. */
  partnerEvents?: PartnerEventWiring;
}

export function createRampflowWorker(options: RampflowWorkerOptions): Promise<Worker> {
  const failureOptions: FailureOptions = {
    outcomeUnknownRetryDelayMs: options.outcomeUnknownRetryDelayMs ?? DEFAULT_OUTCOME_UNKNOWN_RETRY_DELAY_MS,
    refusedCreateParkAfterMs: options.refusedCreateParkAfterMs ?? DEFAULT_REFUSED_CREATE_PARK_AFTER_MS,
    health: options.serviceHealth ?? defaultServiceHealth(),
  };
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    dataConverter: options.dataConverter,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : WORKFLOW_BUNDLE_PATHS),
    // Activity names are unique across the sets, so they merge into one registry.
    activities: {
      ...createRampActivities(options.ramp, failureOptions, options.attachmentStore ?? attachmentStoreFromEnv()),
      ...createExitAccountActivities(options.ramp, failureOptions),
      ...createPayoutActivities(options.ramp, failureOptions),
      ...createEventRoutingActivities(options.ramp, failureOptions),
      ...createReconcileActivities(options.ramp, failureOptions),
      ...createCustomerJourneyLookupActivities(options.ramp, failureOptions),
      ...createDepositDeliveryActivities(options.depositTimings ? { depositTimings: options.depositTimings } : {}),
      ...createPartnerEventActivities(options.partnerEvents),
    },
    shutdownGraceTime: options.shutdownGraceTime ?? '30 seconds',
    ...(options.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: options.maxCachedWorkflows } : {}),
    ...(options.identity ? { identity: options.identity } : {}),
    ...(options.deploymentVersion ? { workerDeploymentOptions: workerDeploymentOptions(options.deploymentVersion) } : {}),
  });
}

let processHealth: ServiceHealth | undefined;

/** One monitor per process: it logs through the SDK's logger and sets a gauge on the runtime's metrics endpoint. */
function defaultServiceHealth(): ServiceHealth {
  const runtime = Runtime.instance();
  if (processHealth) return processHealth;
  const gauge = runtime.metricMeter.createGauge(METRICS.serviceOutage.name, 'int', '', METRICS.serviceOutage.help);
  // Served as 0 from the start, so "no outage" reads as such (`rampflow status`, dashboards) rather than as no data.
  for (const cause of OUTAGE_CAUSES) gauge.set(0, { cause });
  processHealth = new ServiceHealth(runtime.logger, gauge);
  return processHealth;
}
