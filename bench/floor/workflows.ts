/**
 * The floor: Temporal's own cost of a journey's orchestration with nothing else in it. One floor
 * journey has the shape of a measured rampflow journey with webhooks routed directly (bench/README.md):
 * 3 workflow executions (the journey, 2 deposits), 8 activities (6 in the journey, 1 in each deposit:
 * the read before it completes) and 15 signals (11 webhooks, 4 deposit progress reports). The
 * activities do nothing; each webhook is a signal the workflow sends itself, where rampflow's receiver
 * sends it from outside; each deposit is an abandoned child of its journey, where rampflow's receiver
 * starts it with signal-with-start.
 */
import { condition, defineSignal, getExternalWorkflowHandle, ParentClosePolicy, proxyActivities, setHandler, startChild, workflowInfo } from '@temporalio/workflow';
import type { FloorActivities } from './activities';

const { step } = proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });

export const floorEventSignal = defineSignal<[string]>('floorEvent');
export const floorProgressSignal = defineSignal<[{ depositId: string; stage: string }]>('floorProgress');

/** Listens for webhooks; `webhook` delivers one (a signal to this workflow) and waits until it has arrived. */
function webhooks(): { webhook(event: string): Promise<void>; received: Set<string> } {
  const received = new Set<string>();
  setHandler(floorEventSignal, (event) => void received.add(event));
  const self = getExternalWorkflowHandle(workflowInfo().workflowId);
  return {
    received,
    async webhook(event: string) {
      await self.signal(floorEventSignal, event);
      await condition(() => received.has(event));
    },
  };
}

export async function floorDeposit(journeyId: string, kind: 'ONRAMP' | 'OFFRAMP'): Promise<void> {
  const depositId = workflowInfo().workflowId;
  const { webhook } = webhooks();
  const report = (stage: string) => getExternalWorkflowHandle(journeyId).signal(floorProgressSignal, { depositId, stage });
  await webhook('DEPOSIT_RECEIVED');
  await report('RECEIVED');
  for (const event of ['DEPOSIT_APPROVED', 'TRADE_CREATED', 'TRADE_SETTLED', ...(kind === 'OFFRAMP' ? ['PAYMENT_SETTLED'] : [])]) await webhook(event);
  await step(); // the trade or payment read from the service before completing
  await report('COMPLETED');
}

export async function floorJourney(): Promise<void> {
  const journeyId = workflowInfo().workflowId;
  const completed = new Set<string>();
  const { webhook } = webhooks();
  setHandler(floorProgressSignal, ({ depositId, stage }) => {
    if (stage === 'COMPLETED') completed.add(depositId);
  });

  // Customer look-up, both exits, both flows.
  for (let i = 0; i < 5; i++) await step();
  await webhook('VIRTUAL_ACCOUNT_APPROVED');
  await webhook('DEPOSIT_ADDRESS_APPROVED');
  await step(); // the AUD whitelist

  // ACTIVE: a deposit each way, each its own workflow.
  for (const kind of ['ONRAMP', 'OFFRAMP'] as const) {
    await startChild(floorDeposit, { workflowId: `${journeyId}/deposit-${kind}`, args: [journeyId, kind], parentClosePolicy: ParentClosePolicy.ABANDON });
  }
  await condition(() => completed.size === 2);
}
