/**
 * The floor: Temporal's own cost of a journey's orchestration with nothing else in it. One floor
 * journey has the shape of a measured rampflow journey (bench/README.md): 14 workflow executions
 * (the journey, 2 deposits, 11 events), 17 activities (6 in the journey, 1 per event) and 20 signals
 * (11 from events, 7 deposit progress reports, 2 forwarded approvals). The activities do nothing,
 * and each event is an abandoned child started by the workflow it signals, where rampflow's receiver
 * starts it from outside when the service's webhook arrives.
 */
import { condition, defineSignal, getExternalWorkflowHandle, ParentClosePolicy, proxyActivities, setHandler, startChild, workflowInfo } from '@temporalio/workflow';
import type { FloorActivities } from './activities';

const { step } = proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });

export const floorEventSignal = defineSignal<[string]>('floorEvent');
export const floorProgressSignal = defineSignal<[{ depositId: string; stage: string }]>('floorProgress');

/** An event: re-read the record (one activity), signal the target, done. */
export async function floorEvent(target: string, event: string): Promise<void> {
  await step();
  await getExternalWorkflowHandle(target).signal(floorEventSignal, event);
}

/** Starts an event workflow that will signal the caller, as a webhook would. */
async function expectEvent(event: string): Promise<void> {
  const { workflowId } = workflowInfo();
  await startChild(floorEvent, { workflowId: `${workflowId}/${event}`, args: [workflowId, event], parentClosePolicy: ParentClosePolicy.ABANDON });
}

export async function floorDeposit(journeyId: string, kind: 'ONRAMP' | 'OFFRAMP'): Promise<void> {
  const depositId = workflowInfo().workflowId;
  const received = new Set<string>();
  setHandler(floorEventSignal, (event) => void received.add(event));
  const report = (stage: string) => getExternalWorkflowHandle(journeyId).signal(floorProgressSignal, { depositId, stage });
  await report('RECEIVED');
  await condition(() => received.has('DEPOSIT_APPROVED'));
  await expectEvent('TRADE_CREATED');
  await expectEvent('TRADE_SETTLED');
  await condition(() => received.has('TRADE_CREATED') && received.has('TRADE_SETTLED'));
  await report('TRADE_SETTLED');
  if (kind === 'OFFRAMP') {
    await expectEvent('PAYMENT_SETTLED');
    await condition(() => received.has('PAYMENT_SETTLED'));
    await report('PAYMENT_SETTLED');
  }
  await report('COMPLETED');
}

export async function floorJourney(): Promise<void> {
  const journeyId = workflowInfo().workflowId;
  const received = new Set<string>();
  const completed = new Set<string>();
  setHandler(floorEventSignal, (event) => void received.add(event));
  setHandler(floorProgressSignal, ({ depositId, stage }) => {
    if (stage === 'COMPLETED') completed.add(depositId);
  });

  // Customer look-up, both exits, both flows.
  for (let i = 0; i < 5; i++) await step();
  await expectEvent('VIRTUAL_ACCOUNT_APPROVED');
  await expectEvent('DEPOSIT_ADDRESS_APPROVED');
  await condition(() => received.has('VIRTUAL_ACCOUNT_APPROVED') && received.has('DEPOSIT_ADDRESS_APPROVED'));
  await step(); // the AUD whitelist

  // ACTIVE: each deposit's events arrive, the journey starts its workflow and forwards the approval.
  for (const kind of ['ONRAMP', 'OFFRAMP'] as const) {
    await expectEvent(`DEPOSIT_RECEIVED_${kind}`);
    await expectEvent(`DEPOSIT_APPROVED_${kind}`);
  }
  for (const kind of ['ONRAMP', 'OFFRAMP'] as const) {
    await condition(() => received.has(`DEPOSIT_RECEIVED_${kind}`));
    const depositId = `${journeyId}/deposit-${kind}`;
    await startChild(floorDeposit, { workflowId: depositId, args: [journeyId, kind], parentClosePolicy: ParentClosePolicy.ABANDON });
    await condition(() => received.has(`DEPOSIT_APPROVED_${kind}`));
    await getExternalWorkflowHandle(depositId).signal(floorEventSignal, 'DEPOSIT_APPROVED');
  }
  await condition(() => completed.size === 2);
}
