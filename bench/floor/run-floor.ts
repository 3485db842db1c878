/**
 * One floor run: N floor journeys started at once (same start concurrency as rampflow's run) on their
 * own worker process and task queue, finished when all N have completed. Times come from visibility,
 * as for the journeys: each floor journey's start to its close.
 */
import { Client } from '@temporalio/client';
import { startChild, waitUntilReady, type BenchChild } from '../support/child-process';
import { forEachLimited, sleep } from '../support/concurrency';
import { countWorkflows, workerIsPolling, type BenchTemporal } from '../support/temporal';
import { listWorkflows } from '../support/visibility';
import { FLOOR_JOURNEY_WEBHOOKS, floorEventSignal } from './messages';

export interface FloorRunResult {
  count: number;
  finished: boolean;
  makespanMs: number;
  journeyMs: number[];
  workerPeakMiB: number;
}

const START_CONCURRENCY = 32;

/** Starts the floor's worker process and waits until it polls. */
export async function startFloorWorker(
  temporal: BenchTemporal,
  name: string,
): Promise<{ worker: BenchChild; taskQueue: string }> {
  const taskQueue = `floor-${name}`;
  const worker = startChild({
    name: `${name}-floor-worker`,
    command: { script: 'bench/floor/worker-process.ts' },
    env: { TEMPORAL_ADDRESS: temporal.server.address, FLOOR_TASK_QUEUE: taskQueue },
  });
  try {
    await waitUntilReady(worker, 'the floor worker', () => workerIsPolling(temporal.client, taskQueue));
  } catch (error) {
    await worker.stop();
    throw error;
  }
  return { worker, taskQueue };
}

/** The two floors (bench/README.md): the journey's shape when issue 25 drew its target, and its orchestration today. */
export type FloorKind = 'floorJourney' | 'fullFloorJourney';

export async function runFloor(
  client: Client,
  floor: { worker: BenchChild; taskQueue: string },
  count: number,
  timeoutMs: number,
  kind: FloorKind = 'floorJourney',
): Promise<FloorRunResult> {
  const prefix = `${kind === 'floorJourney' ? 'floor' : 'full-floor'}-${Date.now().toString(36)}-`;
  const ids = Array.from({ length: count }, (_, i) => `${prefix}${i}`);
  const deadline = Date.now() + timeoutMs;
  // Plain payloads: the floor's worker has no codec (the floor is Temporal's cost with nothing in it).
  const plain = new Client({ connection: client.connection, namespace: client.options.namespace });
  const starting = forEachLimited(ids, START_CONCURRENCY, async (workflowId) => {
    // The journey's webhooks, as rampflow's receiver would send them: the first one starts it.
    const [first, ...rest] = FLOOR_JOURNEY_WEBHOOKS;
    const journey = await plain.workflow.signalWithStart<() => Promise<void>, [string]>(kind, {
      workflowId,
      taskQueue: floor.taskQueue,
      args: [],
      signal: floorEventSignal,
      signalArgs: [first],
    });
    for (const event of rest) await journey.signal(floorEventSignal, event);
  });
  const doneQuery = `WorkflowType = '${kind}' AND ExecutionStatus = 'Completed' AND WorkflowId STARTS_WITH '${prefix}'`;
  let done = 0;
  while (done < count && Date.now() < deadline) {
    floor.worker.assertAlive();
    await sleep(500);
    done = await countWorkflows(client, doneQuery);
  }
  await starting;
  const journeys = await listWorkflows(client, doneQuery);
  const journeyMs = journeys.map((journey) => (journey.closeTime ?? Number.NaN) - journey.startTime);
  const makespanMs =
    journeys.length === 0
      ? Number.NaN
      : Math.max(...journeys.map((journey) => journey.closeTime ?? 0)) -
        Math.min(...journeys.map((journey) => journey.startTime));
  return { count, finished: done >= count, makespanMs, journeyMs, workerPeakMiB: floor.worker.memory().peakMiB };
}
