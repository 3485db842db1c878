/**
 * The floor: Temporal's own cost of a journey's orchestration with nothing else in it. One floor
 * journey has the shape of a measured rampflow journey with webhooks routed directly (bench/README.md):
 * 3 workflow executions (the journey, 2 deposits), 8 activities (6 in the journey, 1 in each deposit:
 * the read before it completes) and 15 signals (11 webhooks, 4 deposit progress reports). The
 * activities do nothing. Where rampflow's receiver signals from outside, the floor's two journey
 * webhooks come from the benchmark's driver (run-floor.ts: a signal-with-start and a signal) and each
 * deposit's come from its journey, which starts the deposit as an abandoned child (a workflow cannot
 * signal itself).
 */
import {
  condition,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  proxyActivities,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { FloorActivities } from './activities';
import { depositWebhooks, FLOOR_JOURNEY_WEBHOOKS, floorEventSignal, floorProgressSignal } from './messages';

const { step } = proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });

/** Waits for webhooks by name, in any order of arrival. */
function webhooks(): (event: string) => Promise<void> {
  const received = new Set<string>();
  setHandler(floorEventSignal, (event) => void received.add(event));
  return (event) => condition(() => received.has(event));
}

export async function floorDeposit(journeyId: string, kind: 'ONRAMP' | 'OFFRAMP'): Promise<void> {
  const depositId = workflowInfo().workflowId;
  const arrived = webhooks();
  const report = (stage: string) =>
    getExternalWorkflowHandle(journeyId).signal(floorProgressSignal, { depositId, stage });
  const [first, ...rest] = depositWebhooks(kind);
  await arrived(first!);
  await report('RECEIVED');
  for (const event of rest) await arrived(event);
  await step(); // the trade or payment read from the service before completing
  await report('COMPLETED');
}

export async function floorJourney(): Promise<void> {
  const journeyId = workflowInfo().workflowId;
  const completed = new Set<string>();
  const arrived = webhooks();
  setHandler(floorProgressSignal, ({ depositId, stage }) => {
    if (stage === 'COMPLETED') completed.add(depositId);
  });

  // Customer look-up, both exits, both flows.
  for (let i = 0; i < 5; i++) await step();
  for (const event of FLOOR_JOURNEY_WEBHOOKS) await arrived(event);
  await step(); // the AUD whitelist

  // ACTIVE: a deposit each way, each its own workflow, each moved by its webhooks.
  for (const kind of ['ONRAMP', 'OFFRAMP'] as const) {
    const deposit = await startChild(floorDeposit, {
      workflowId: `${journeyId}/deposit-${kind}`,
      args: [journeyId, kind],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
    for (const event of depositWebhooks(kind)) await deposit.signal(floorEventSignal, event);
  }
  await condition(() => completed.size === 2);
}
/** The full floor (today's orchestration) runs on the same worker. */
export { fullFloorDeposit, fullFloorJourney } from './full-floor';
/** The deposit floor (`npm run bench -- burst`) too. */
export { depositFloorDeposit, depositFloorJourney } from './deposit-floor';
