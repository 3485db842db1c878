/**
 * Builds the rampflow worker: the journey, deposit, ramp-event and reconciliation workflows, and their
 * activities bound to one signed client. Used by the worker process, the dev stack, the tests and the benchmarks.
 *
 * One rampflow worker is two Temporal workers sharing a connection (README, "Calls to the service are
 * rate-limited"):
 * - on TEMPORAL_TASK_QUEUE, the workflows and every activity (those scheduled before the service
 *   queue existed still arrive here, workflows/common/calls.ts);
 * - on `<TEMPORAL_TASK_QUEUE>-service`, the activities that call the ramp service, polled with
 *   `maxTaskQueueActivitiesPerSecond` = RAMP_MAX_CALLS_PER_SECOND / CALLS_PER_SERVICE_ACTIVITY. That
 *   rate is the Temporal server's, for the queue, across every worker polling it (the last poller's
 *   value wins: give every worker the same). A backlog (a bulk retry, a reconciliation backfill)
 *   waits on the server in priority order (signups and payouts first, bulk retries and
 *   reconciliation last) rather than in the workers, where it would lose its order and run out
 *   its activities' timeouts. Activities on another queue than their workflow's are never executed
 *   eagerly, so none bypasses it. For the same reason the worker takes no more service activities
 *   at once than about a second of its client's calls (serviceActivitiesAtOnce).
 *
 * The queue's rate counts activity dispatches, not calls, and a dispatch is not the moment a call
 * reaches the service, so it bounds the calls only roughly. The bound that holds is each worker's
 * client (ramp/call-pacing.ts) keeping to its share of the partner-wide rate, which the workers work
 * out together through the Temporal server (workers/partner-rate.ts): every call counted (list
 * pages, retries, local activities, calls refused with 429), for any number of workers.
 * In a versioned deployment both queues belong to the worker's version, so a pinned workflow's
 * service calls go to its own version's workers.
 */
import { join } from 'node:path';
import type { DataConverter, MetricMeter, WorkerDeploymentVersion } from '@temporalio/common';
import { NativeConnection, Runtime, Worker, type TunerHolder, type WorkflowBundleOption } from '@temporalio/worker';
import { attachmentStoreFromEnv, type AttachmentStore } from '../attachments';
import { FAILURE_CONVERTER_PATH } from '../codec/data-converter';
import {
  createEventRoutingActivities,
  createExitAccountActivities,
  createPayoutActivities,
  createRampActivities,
  createReconcileActivities,
} from '../activities';
import { createCustomerJourneyLookupActivities } from '../activities/customer-journey-lookup';
import { createDepositDeliveryActivities } from '../activities/deposit-delivery';
import { createJourneyReportActivities } from '../activities/journey-reports';
import { createNamespaceActivities } from '../activities/namespace-retention';
import { createPartnerEventActivities, type PartnerEventWiring } from '../activities/partner-event-activities';
import {
  DEFAULT_OUTCOME_UNKNOWN_RETRY_DELAY_MS,
  DEFAULT_REFUSED_CREATE_PARK_AFTER_MS,
  type FailureOptions,
} from '../activities/failures';
import { OUTAGE_CAUSES, ServiceHealth } from '../activities/service-health';
import { METRICS } from '../observability/metric-catalogue';
import type { RampClient } from '../ramp';
import type { DepositTimings } from '../workflows/schemas';
import { serviceTaskQueueOf } from '../workflows/common/calls';
import { LeasedActivitySlots } from './leased-activity-slots';
import { PartnerRate } from './partner-rate';
import { workerDeploymentOptions } from './versioning';

export const WORKFLOWS_PATH = join(__dirname, '..', 'workflows', 'index.ts');

/** What every workflow bundle is built from: the workflows, and the failure converter that runs beside them. */
export const WORKFLOW_BUNDLE_PATHS = { workflowsPath: WORKFLOWS_PATH, failureConverterPath: FAILURE_CONVERTER_PATH };

/**
 * The calls one service activity attempt makes, mostly: an `ensure…` looks the record up, then
 * creates it (activities/creates.ts); the customer's also reads it back, a third. The queue's
 * dispatch rate is the calls per second divided by this, so a backlog of creates is dispatched at
 * about what the partner's limit lets the clients send, and waits on the server rather than in the
 * workers; what the third calls leave waiting in the workers, serviceActivitiesAtOnce keeps small.
 */
export const CALLS_PER_SERVICE_ACTIVITY = 2;

/**
 * The service activities one worker runs at once when its client is limited: about a second of its
 * calls (its share of RAMP_MAX_CALLS_PER_SECOND), and at least this many. More would only wait in the
 * client's pacer, which lets waiting calls go in no particular order, while the server would have
 * kept them in priority order: with the SDK's default of 100, a signup's create came after up to 307
 * of a bulk retry's (test/faults/rate-limit.test.ts, docs/deploying/rate-limits.md).
 */
export const MIN_SERVICE_ACTIVITIES_AT_ONCE = 2;

/** How many service activities a worker whose client keeps to `callsPerSecond` runs at once (above). */
export function serviceActivitiesAtOnce(callsPerSecond: number): number {
  return Math.max(MIN_SERVICE_ACTIVITIES_AT_ONCE, Math.ceil(callsPerSecond));
}

/** How long in-flight tasks may run on after a shutdown signal, unless the options say otherwise. */
export const SHUTDOWN_GRACE_MS = 30_000;

/** Both Temporal workers of one rampflow worker, run and stopped together. */
export interface RampflowWorker {
  /** The workflow worker (TEMPORAL_TASK_QUEUE) and the service-call worker (`<queue>-service`). */
  readonly workers: readonly [Worker, Worker];
  /** Runs both until shutdown (or either fails: the other is then stopped too). */
  run(): Promise<void>;
  shutdown(): void;
}

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
  /**
   * RAMP_MAX_CALLS_PER_SECOND, the partner's limit: the service task queue is dispatched at this
   * divided by CALLS_PER_SERVICE_ACTIVITY, by the server across every worker (give every worker the
   * same value), and `ramp`'s pacer keeps to this worker's share of it (workers/partner-rate.ts).
   * No limit when undefined.
   */
  maxCallsPerSecond?: number;
}

export async function createRampflowWorker(options: RampflowWorkerOptions): Promise<RampflowWorker> {
  const failureOptions: FailureOptions = {
    outcomeUnknownRetryDelayMs: options.outcomeUnknownRetryDelayMs ?? DEFAULT_OUTCOME_UNKNOWN_RETRY_DELAY_MS,
    refusedCreateParkAfterMs: options.refusedCreateParkAfterMs ?? DEFAULT_REFUSED_CREATE_PARK_AFTER_MS,
    health: options.serviceHealth ?? defaultServiceHealth(),
  };
  // Activity names are unique across the sets, so they merge into one registry.
  const activities = {
    ...createRampActivities(options.ramp, failureOptions, options.attachmentStore ?? attachmentStoreFromEnv()),
    ...createExitAccountActivities(options.ramp, failureOptions),
    ...createPayoutActivities(options.ramp, failureOptions),
    ...createEventRoutingActivities(options.ramp, failureOptions),
    ...createReconcileActivities(options.ramp, failureOptions),
    ...createCustomerJourneyLookupActivities(),
    ...createDepositDeliveryActivities(options.depositTimings ? { depositTimings: options.depositTimings } : {}),
    ...createJourneyReportActivities(),
    ...createNamespaceActivities(),
    ...createPartnerEventActivities(options.partnerEvents),
  };
  const shared = {
    connection: options.connection,
    namespace: options.namespace,
    dataConverter: options.dataConverter,
    activities,
    shutdownGraceTime: options.shutdownGraceTime ?? SHUTDOWN_GRACE_MS,
    ...(options.identity ? { identity: options.identity } : {}),
    // Both queues join the same version: a pinned workflow's service calls stay on its own code.
    ...(options.deploymentVersion
      ? { workerDeploymentOptions: workerDeploymentOptions(options.deploymentVersion) }
      : {}),
  };
  const workflowWorker = await Worker.create({
    ...shared,
    taskQueue: options.taskQueue,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : WORKFLOW_BUNDLE_PATHS),
    ...(options.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: options.maxCachedWorkflows } : {}),
  });
  // The client's limit (the partner's, within which its share is leased: workers/partner-rate.ts).
  const clientCallsPerSecond = options.ramp.http.pacer.maxCallsPerSecond;
  // Shared by the partner's workers: this worker's activity slots follow its share (workers/leased-activity-slots.ts).
  const leasedSlots = options.maxCallsPerSecond === undefined ? undefined : new LeasedActivitySlots();
  const serviceWorker = await Worker.create({
    ...shared,
    taskQueue: serviceTaskQueueOf(options.taskQueue),
    ...(options.maxCallsPerSecond !== undefined
      ? { maxTaskQueueActivitiesPerSecond: options.maxCallsPerSecond / CALLS_PER_SERVICE_ACTIVITY }
      : {}),
    ...(leasedSlots
      ? { tuner: serviceWorkerTuner(leasedSlots) }
      : clientCallsPerSecond !== undefined
        ? { maxConcurrentActivityTaskExecutions: serviceActivitiesAtOnce(clientCallsPerSecond) }
        : {}),
  });
  const showShare = serviceCallRateGauge();
  const partnerRate =
    options.maxCallsPerSecond === undefined || !leasedSlots
      ? undefined
      : new PartnerRate({
          workflowService: options.connection.workflowService,
          namespace: options.namespace,
          serviceTaskQueue: serviceTaskQueueOf(options.taskQueue),
          identity: serviceWorker.options.identity,
          pacer: options.ramp.http.pacer,
          maxCallsPerSecond: options.maxCallsPerSecond,
          onShare: (rate, share) => {
            leasedSlots.resize(share === 0 ? 1 : serviceActivitiesAtOnce(share));
            showShare(rate, share);
          },
          onProblem: (message) => {
            Runtime.instance().logger.warn(message);
          },
        });
  return pairOf(workflowWorker, serviceWorker, partnerRate);
}

/** Runs two workers as one: both stop when either ends, and the first failure is what run() throws. */
function pairOf(workflowWorker: Worker, serviceWorker: Worker, partnerRate: PartnerRate | undefined): RampflowWorker {
  const workers = [workflowWorker, serviceWorker] as const;
  const shutdown = () => {
    partnerRate?.stop();
    for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  return {
    workers,
    shutdown,
    async run() {
      // The share of the partner's rate is worked out while the service queue is polled (its pollers are who shares it).
      partnerRate?.start();
      const results = await Promise.allSettled(
        workers.map((worker) =>
          worker.run().finally(() => {
            // One stopped (shutdown, or a fatal error): the other goes too.
            shutdown();
          }),
        ),
      );
      partnerRate?.stop();
      const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}

/**
 * The service worker's slots: activities as leased; local activities and workflow tasks (it runs
 * none of its own) at the SDK's default count.
 */
function serviceWorkerTuner(activities: LeasedActivitySlots): TunerHolder {
  const fixed = { type: 'fixed-size', numSlots: 100 } as const;
  return {
    activityTaskSlotSupplier: activities,
    localActivityTaskSlotSupplier: fixed,
    workflowTaskSlotSupplier: fixed,
    nexusTaskSlotSupplier: fixed,
  };
}

let callRateGauge: ReturnType<MetricMeter['createGauge']> | undefined;

/** Sets the partner-wide rate and this worker's share on the runtime's metrics endpoint (one gauge per process). */
function serviceCallRateGauge(): (rate: number, share: number) => void {
  callRateGauge ??= Runtime.instance().metricMeter.createGauge(
    METRICS.serviceCallRate.name,
    'float',
    '',
    METRICS.serviceCallRate.help,
  );
  const gauge = callRateGauge;
  return (rate, share) => {
    gauge.set(rate, { scope: 'partner' });
    gauge.set(share, { scope: 'worker' });
  };
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
