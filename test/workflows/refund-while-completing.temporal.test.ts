/**
 * A refund that reaches a deposit while it is ending COMPLETED (its report to the journey not yet
 * taken): the receiver hands the service's REJECTED record to the running workflow, so it starts no
 * reversal run of its own, and the workflow itself must end REVERSED and tell the journey. Found by
 * the chaos run (seed 4, docs/guarantees/chaos.md): the deposit ended COMPLETED and the journey kept
 * counting money the service had given back.
 *
 * The journey is a stand-in (test/support/workflows/report-gate.ts) under the customer's journey id,
 * which holds the COMPLETED report at its door until the refund has been delivered.
 */
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataConverterFromEnv } from '../../codec';
import type { depositLifecycle } from '../../workflows/deposit/workflow';
import { depositWorkflowId } from '../../workflows/common/messages';
import type { RampEventResult } from '../../workflows/ramp-event/events';
import { startJourneyHarness, type JourneyHarness } from '../support/journey-harness';
import { connectWorker, uniqueTaskQueue } from '../support/temporal';
import { until } from '../support/until';
import { finishGateSignal, openGateSignal, takenReportsQuery, type reportGate } from '../support/workflows/report-gate';
import { startOfframpByWebhooks, type OfframpByWebhooks } from '../webhooks/support/offramp-by-webhooks';

const EVENTS_ONLY_DEPOSITS = { pollIntervalSeconds: 3600, stepDeadlineSeconds: 86_400, notFoundGraceSeconds: 1 };

let h: JourneyHarness;
let customer: OfframpByWebhooks;
let gateWorker: { stop: () => Promise<void> } | undefined;
let gate: WorkflowHandle | undefined;

beforeAll(async () => {
  h = await startJourneyHarness({ clock: { frozen: true } }, { depositTimings: EVENTS_ONLY_DEPOSITS });
  customer = await startOfframpByWebhooks(h, EVENTS_ONLY_DEPOSITS);
});
afterAll(async () => {
  // The gate ends with the test's last step; a test that failed before it leaves it to be ended here.
  await gate?.terminate('the test ended').catch(() => undefined);
  await gateWorker?.stop();
  await customer?.receiver.close();
  await h?.close();
});

/** Replaces the customer's journey with the gate, on a worker of its own. */
async function gateInPlaceOfJourney() {
  const journeyId = customer.journey.workflowId;
  await customer.journey.terminate('replaced by a report gate for this test');
  const taskQueue = uniqueTaskQueue('report-gate');
  const connection = await connectWorker();
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowsPath: join(__dirname, '../support/workflows/report-gate.ts'),
    dataConverter: dataConverterFromEnv(),
  });
  const running = worker.run();
  gateWorker = {
    stop: async () => {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
  gate = await h.client.workflow.start<typeof reportGate>('reportGate', { taskQueue, workflowId: journeyId });
  return gate;
}

describe('a deposit refunded while it ends COMPLETED', () => {
  it('ends REVERSED and tells the journey, after the COMPLETED report the journey took', async () => {
    const journey = await gateInPlaceOfJourney();
    const depositId = await customer.pay('15.000000');
    const trade = await customer.tradeOf(depositId);
    await h.control.settleTrade(trade.id);
    await h.control.settlePayment((await customer.tradeOf(depositId)).paymentId!);
    await customer.deliver();
    // The deposit shows COMPLETED and offers it to the journey, which holds it.
    await h.waitForDeposit(depositId, (s) => s.stage === 'COMPLETED');
    const { runId } = await h.client.workflow.getHandle(depositWorkflowId(depositId)).describe();

    await h.control.refundDeposit(depositId);
    await customer.deliver();
    // The service's REJECTED record reached the running deposit (no reversal run of the receiver's).
    expect(
      (await h.client.workflow.getHandle(`event/DEPOSIT_REJECTED/${depositId}`).result()) as RampEventResult,
    ).toMatchObject({ outcome: 'ROUTED', target: depositWorkflowId(depositId) });

    await journey.signal(openGateSignal);
    // The run that was ending COMPLETED ends REVERSED itself.
    const deposit = h.client.workflow.getHandle<typeof depositLifecycle>(depositWorkflowId(depositId), runId);
    expect(await deposit.result()).toMatchObject({
      stage: 'REVERSED',
      reason: expect.stringContaining('after its trade settled'),
    });
    const reports = await until(
      'the journey took the reversal',
      async () => {
        const taken = (await journey.query(takenReportsQuery)).filter(
          (report) => report.progress.summary.depositId === depositId,
        );
        return taken.at(-1)?.progress.summary.stage === 'REVERSED' ? taken : undefined;
      },
      30_000,
    );
    const stages = reports.map((report) => report.progress.summary.stage);
    expect(stages.slice(-2)).toEqual(['COMPLETED', 'REVERSED']);
    expect(reports.at(-1)!.progress.previousStage).toBe('COMPLETED');
    await journey.signal(finishGateSignal);
    await journey.result();
  });
});
