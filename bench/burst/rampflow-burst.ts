/**
 * rampflow's side of the burst: one customer's journey to ACTIVE (an AUD onramp, as in the demo), then
 * N deposits of 1.00 AUD paid into its virtual account through POST /deposit/mock, 8 at a time, with
 * the sandbox on autopilot as a new user runs it (`--autopilot-delay 0.2 --delivery-tick 1`), the real
 * receiver and one real worker (child processes). Done when every deposit workflow has completed and
 * the journey counts them; the journey must count exactly N completed and N.00 AUD, or it throws.
 */
import type { Client } from '@temporalio/client';
import { createRampflowClient } from '../../client';
import { type JourneyState, journeyStateQuery, journeyWorkflowId } from '../../workflows/common/messages';
import { journeyRequest, prepareCustomer } from '../journeys/partner';
import { forEachLimited, sleep } from '../support/concurrency';
import { shapesByType } from '../support/history-shape';
import { type RampflowStack, startRampflowStack } from '../support/rampflow-stack';
import { BENCH_PAYLOAD_KEYS, type BenchTemporal, countWorkflows } from '../support/temporal';
import {
  AUTOPILOT_STEP_MS,
  BURST_CONCURRENCY,
  type BurstResult,
  closeTimes,
  DELIVERY_TICK_MS,
  splitShapes,
  untilDone,
} from './burst-result';
import { temporalCpuMs } from '../support/process-cpu';

export const BURST_EXTERNAL_ID = 'burst-customer';
const AUD_SENDER = { bsbNumber: '062000', accountNumber: '12345678', accountName: 'Ada Lovelace' };
const DEPOSIT = 'depositLifecycle';
const JOURNEY = 'customerJourney';

export interface RampflowBurst {
  result: BurstResult;
  /** The service's ids of the deposits, in the order paid: the floor uses the same workflow ids. */
  depositIds: string[];
  /** When each was paid (the service's answer), since the first payment was sent: the floor's webhooks fall due the same way. */
  paidAtMs: number[];
}

export async function runRampflowBurst(
  temporal: BenchTemporal,
  count: number,
  cluster: boolean,
  limitMs: number,
  progress: (line: string) => void,
): Promise<RampflowBurst> {
  const stack = await startRampflowStack(temporal, {
    name: 'burst',
    deliveryTickSeconds: DELIVERY_TICK_MS / 1000,
    autopilotDelaySeconds: AUTOPILOT_STEP_MS / 1000,
  });
  try {
    await stack.registerReceiver();
    const rampflow = await createRampflowClient({
      connection: temporal.connection,
      namespace: temporal.server.namespace,
      taskQueue: stack.taskQueue,
      payloadKeys: BENCH_PAYLOAD_KEYS,
    });
    await prepareCustomer(stack.ramp, BURST_EXTERNAL_ID);
    await rampflow.startJourney(journeyRequest(BURST_EXTERNAL_ID, { pollIntervalSeconds: 10 }));
    const journey = temporal.client.workflow.getHandle(journeyWorkflowId(BURST_EXTERNAL_ID));
    progress('burst: one journey to ACTIVE');
    const active = await untilJourney(journey, (state) => state.stage === 'ACTIVE', 180_000, stack);
    const virtualAccountId = active.onramp?.virtualAccount?.id;
    if (!virtualAccountId) throw new Error('the journey is ACTIVE without its virtual account');
    await signupSettled(temporal.client, stack);

    const before = await shapesByType(temporal.client, '');
    const callsBefore = new Map(stack.requestLog.byPath);
    const deliveriesBefore = { ...stack.requestLog.deliveries };
    const cpuBefore = cpuNow(stack, cluster);
    progress(`burst: ${count} deposits of 1.00 AUD, ${BURST_CONCURRENCY} at a time`);
    const sentAt = Date.now();
    const depositIds: string[] = [];
    const paidAtMs: number[] = [];
    let sent = 0;
    const sending = forEachLimited(
      Array.from({ length: count }, (_, i) => i),
      BURST_CONCURRENCY,
      async (index) => {
        const { id } = await stack.ramp.deposits.mock({
          virtualAccountId,
          amount: '1.00',
          currency: 'AUD',
          sender: AUD_SENDER,
        });
        if (!id) throw new Error('the sandbox took a deposit without giving its id');
        depositIds[index] = id;
        paidAtMs[index] = Date.now() - sentAt;
        sent += 1;
      },
    );
    let state: JourneyState | undefined;
    let polls = 0;
    await untilDone(
      limitMs,
      async () => {
        stack.worker?.assertAlive();
        stack.receiver.assertAlive();
        const completed = await countWorkflows(
          temporal.client,
          `WorkflowType = '${DEPOSIT}' AND ExecutionStatus = 'Completed'`,
        );
        // The journey is asked every fifth second and once the deposits are done: a query is worker CPU too.
        polls += 1;
        if (completed >= count || polls % 5 === 0) state = await journey.query(journeyStateQuery).catch(() => state);
        const counted = state?.deposits.byStage.COMPLETED ?? 0;
        const parked = await countWorkflows(
          temporal.client,
          `WorkflowType = '${DEPOSIT}' AND RampStage = 'NEEDS_ATTENTION'`,
        );
        return {
          done: sent === count && completed >= count && counted >= count,
          line: `${sent}/${count} paid, ${completed} deposit workflows completed, the journey counts ${counted} completed${parked ? `, ${parked} parked` : ''}`,
        };
      },
      (line) => progress(`  ${line}`),
    );
    const cpu = cpuSince(cpuBefore, cpuNow(stack, cluster));
    const deliveries = {
      attempts: stack.requestLog.deliveries.attempts - deliveriesBefore.attempts,
      totalMs: stack.requestLog.deliveries.totalMs - deliveriesBefore.totalMs,
    };
    await sending;
    checkJourneyCounted(state!, count);

    const { lastClose, runMs: depositRunMs } = await closeTimes(temporal.client, DEPOSIT);
    const spanMs = lastClose - sentAt;
    progress('burst: reading every history');
    const shapes = splitShapes(await shapesByType(temporal.client, ''), before, { deposit: DEPOSIT, journey: JOURNEY });
    const callsByPath = new Map<string, number>();
    for (const [path, made] of stack.requestLog.byPath) {
      if (path.startsWith('/sandbox/') || path === '/deposit/mock') continue;
      const since = made - (callsBefore.get(path) ?? 0);
      if (since > 0) callsByPath.set(path, since);
    }
    return {
      result: { deposits: count, spanMs, depositRunMs, ...shapes, cpuMs: cpu, callsByPath, deliveries },
      depositIds,
      paidAtMs,
    };
  } finally {
    await stack.stop();
  }
}

type CpuReading = BurstResult['cpuMs'];

function cpuNow(stack: RampflowStack, cluster: boolean): CpuReading {
  const { user, system } = process.cpuUsage();
  return {
    ...temporalCpuMs(cluster),
    worker: stack.worker!.cpuMs(),
    receiver: stack.receiver.cpuMs(),
    driver: (user + system) / 1000,
  };
}

function cpuSince(before: CpuReading, after: CpuReading): CpuReading {
  return Object.fromEntries(
    Object.entries(after).map(([part, ms]) => [part, ms - (before[part as keyof CpuReading] ?? 0)]),
  ) as CpuReading;
}

/** The journey must have counted each deposit exactly once: N completed, N.00 AUD, none still open. */
function checkJourneyCounted(state: JourneyState, count: number): void {
  const completed = state.deposits.byStage.COMPLETED ?? 0;
  const total = state.deposits.completedTotals.AUD;
  const open = Object.entries(state.deposits.byStage).filter(([stage]) => stage !== 'COMPLETED');
  if (completed !== count || total === undefined || Number(total).toFixed(2) !== count.toFixed(2) || open.length > 0) {
    throw new Error(
      `the journey counts ${completed} deposits completed and ${total ?? 'no'} AUD (${open.map(([stage, n]) => `${n} ${stage}`).join(', ') || 'nothing else'}), not ${count} and ${count.toFixed(2)} AUD`,
    );
  }
}

async function untilJourney(
  handle: ReturnType<Client['workflow']['getHandle']>,
  accept: (state: JourneyState) => boolean,
  timeoutMs: number,
  stack: RampflowStack,
): Promise<JourneyState> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    stack.worker?.assertAlive();
    const state = await handle.query(journeyStateQuery).catch(() => undefined);
    if (state && accept(state)) return state;
    if (Date.now() > deadline)
      throw new Error(
        `the journey did not get there within ${timeoutMs / 1000} s; last stage: ${state?.stage ?? 'none'}`,
      );
    await sleep(250);
  }
}

/** Waits until nothing but the journey runs and its history has stopped growing (signup's events all taken), for at most a minute. */
async function signupSettled(client: Client, stack: RampflowStack): Promise<void> {
  const deadline = Date.now() + 60_000;
  let lastLength = -1;
  while (Date.now() < deadline) {
    stack.worker?.assertAlive();
    const others = await countWorkflows(client, `ExecutionStatus = 'Running' AND WorkflowType != '${JOURNEY}'`);
    const { historyLength } = await client.workflow.getHandle(journeyWorkflowId(BURST_EXTERNAL_ID)).describe();
    if (others === 0 && historyLength === lastLength) return;
    lastLength = historyLength;
    await sleep(2_000);
  }
}
