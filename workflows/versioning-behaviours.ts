/**
 * Which code each workflow runs on when a new worker version becomes current (README, "Changing
 * workflow code"). Stated here for every type, so adding a workflow means deciding.
 *
 * - PINNED: the run finishes on the worker version it started on. For workflows that end within days
 *   (a deposit, a webhook's routing, a reconciliation pass, a payout): the old version's workers stay
 *   up until these drain (`rampflow versions`), and their code never needs to replay a new shape. A
 *   deposit or payout parked for an operator is moved to the current version instead (`rampflow
 *   versions --move-parked`, a versioning override of AUTO_UPGRADE), so it holds no old version.
 * - AUTO_UPGRADE: the run's next workflow task goes to the current version. For the journey, which
 *   lives for years and may be parked for months: it moves to new code at once, so every change to its
 *   shape goes behind `patched('<change-id>')` and the replay corpus proves old histories still replay.
 *   The same for a stream's partner event deliveries, which may stay parked for an operator for weeks.
 */
import type { VersioningBehavior, WorkflowDefinitionOptions } from '@temporalio/common';
import { setWorkflowOptions, workflowInfo } from '@temporalio/workflow';
import { depositLifecycle } from './deposit/workflow';
import { customerJourney } from './journey/workflow';
import { partnerEventDelivery } from './partner-events/delivery';
import { payout } from './payout/workflow';
import { rampEvent } from './ramp-event/workflow';
import { reconcileWithService } from './reconcile/workflow';

/**
 * The behaviour on a versioned worker, nothing on an unversioned one (TEMPORAL_WORKER_VERSIONING=false,
 * tests, benchmarks): the SDK refuses a workflow task that states a behaviour to a worker outside any
 * deployment. An unversioned worker has a build ID too, but no deployment name. Asked once per run,
 * on the worker that runs it.
 */
const onVersionedWorkers = (versioningBehavior: VersioningBehavior) => (): WorkflowDefinitionOptions =>
  workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior } : {};

setWorkflowOptions(onVersionedWorkers('AUTO_UPGRADE'), customerJourney);
setWorkflowOptions(onVersionedWorkers('PINNED'), depositLifecycle);
setWorkflowOptions(onVersionedWorkers('PINNED'), rampEvent);
setWorkflowOptions(onVersionedWorkers('PINNED'), reconcileWithService);
setWorkflowOptions(onVersionedWorkers('PINNED'), payout);
setWorkflowOptions(onVersionedWorkers('AUTO_UPGRADE'), partnerEventDelivery);
