/**
 * The deposit floor's side of the burst (bench/floor/deposit-floor.ts): the same workflow ids as
 * rampflow's run (`customer/<externalId>`, `deposit/<depositId>` of the deposits the service took),
 * each deposit's four webhooks sent as the sandbox delivered rampflow's and the receiver passed them on
 * (bench/burst/delivery-schedule.ts: due at the same times after each payment, one delivery tick a
 * second, one after another; the first of a deposit a signal-with-start, the rest signals), on the
 * floor's own worker process with plain payloads. Done when every floor deposit has completed and the
 * floor journey has counted them all (it then ends).
 */
import { Client, type WorkflowHandle } from '@temporalio/client';
import { depositWorkflowId, journeyWorkflowId } from '../../workflows/common/messages';
import { floorEventSignal } from '../floor/messages';
import { startFloorWorker } from '../floor/run-floor';
import { sleep } from '../support/concurrency';
import { shapesByType } from '../support/history-shape';
import { countWorkflows, type BenchTemporal } from '../support/temporal';
import {
  AUTOPILOT_STEP_MS,
  closeTimes,
  DELIVERY_TICK_MS,
  splitShapes,
  untilDone,
  type BurstResult,
} from './burst-result';
import { temporalCpuMs } from '../support/process-cpu';
import { sandboxDeliverySchedule } from './delivery-schedule';

const DEPOSIT = 'depositFloorDeposit';
const JOURNEY = 'depositFloorJourney';

export async function runFloorBurst(
  temporal: BenchTemporal,
  externalId: string,
  paid: { depositIds: string[]; paidAtMs: number[] },
  cluster: boolean,
  limitMs: number,
  progress: (line: string) => void,
): Promise<BurstResult> {
  const { depositIds } = paid;
  const floor = await startFloorWorker(temporal, 'burst');
  try {
    const plain = new Client({ connection: temporal.client.connection, namespace: temporal.client.options.namespace });
    const journeyId = journeyWorkflowId(externalId);
    const journey = await plain.workflow.start(JOURNEY, {
      workflowId: journeyId,
      taskQueue: floor.taskQueue,
      args: [depositIds.length],
    });
    await firstTaskDone(journey);

    const before = await shapesByType(plain, '');
    const cpuBefore = { ...temporalCpuMs(cluster), worker: floor.worker.cpuMs() };
    const schedule = sandboxDeliverySchedule(paid.paidAtMs, { stepMs: AUTOPILOT_STEP_MS, tickMs: DELIVERY_TICK_MS });
    progress(
      `deposit floor: the same ${depositIds.length} deposits' webhooks, delivered as the sandbox delivered rampflow's`,
    );
    const sentAt = Date.now();
    let sent = 0;
    const sending = (async () => {
      for (const tick of schedule) {
        await sleep(sentAt + tick.atMs - Date.now());
        for (const { deposit, event } of tick.deliveries) {
          const workflowId = depositWorkflowId(depositIds[deposit]!);
          if (event === 'DEPOSIT_RECEIVED')
            await plain.workflow.signalWithStart(DEPOSIT, {
              workflowId,
              taskQueue: floor.taskQueue,
              args: [journeyId],
              signal: floorEventSignal,
              signalArgs: [event],
            });
          else await plain.workflow.getHandle(workflowId).signal(floorEventSignal, event);
        }
        sent += tick.deliveries.length;
      }
    })();
    const webhooks = schedule.reduce((sum, tick) => sum + tick.deliveries.length, 0);
    await untilDone(
      limitMs,
      async () => {
        floor.worker.assertAlive();
        const completed = await countWorkflows(
          temporal.client,
          `WorkflowType = '${DEPOSIT}' AND ExecutionStatus = 'Completed'`,
        );
        const journeyDone = (await journey.describe()).status.name === 'COMPLETED';
        return {
          done: sent === webhooks && completed >= depositIds.length && journeyDone,
          line: `${sent}/${webhooks} webhooks sent, ${completed} floor deposits completed${journeyDone ? ', the journey has counted them all' : ''}`,
        };
      },
      (line) => progress(`  ${line}`),
    );
    const after = { ...temporalCpuMs(cluster), worker: floor.worker.cpuMs() };
    await sending;
    const { lastClose, runMs: depositRunMs } = await closeTimes(plain, DEPOSIT);
    const spanMs = lastClose - sentAt;
    const shapes = splitShapes(await shapesByType(plain, ''), before, { deposit: DEPOSIT, journey: JOURNEY });
    const cpuMs = {
      server: after.server - cpuBefore.server,
      worker: after.worker - cpuBefore.worker,
      ...(cluster ? { postgres: (after.postgres ?? 0) - (cpuBefore.postgres ?? 0) } : {}),
    };
    return { deposits: depositIds.length, spanMs, depositRunMs, ...shapes, cpuMs, callsByPath: new Map() };
  } finally {
    await floor.worker.stop();
  }
}

/** Waits until the journey's first workflow task has completed, so the reading before the burst holds it. */
async function firstTaskDone(journey: WorkflowHandle): Promise<void> {
  for (let tries = 0; tries < 120; tries += 1) {
    const history = await journey.fetchHistory();
    if ((history.events ?? []).some((event) => event.workflowTaskCompletedEventAttributes)) return;
    await sleep(250);
  }
  throw new Error('the floor journey did not run its first workflow task within 30 s');
}
