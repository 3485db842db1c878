/**
 * The deposit floor (`npm run bench -- burst`): what a deposit must cost Temporal, with nothing else in
 * it. The driver sends each deposit's webhooks as the receiver would (the first a signal-with-start of
 * `deposit/<depositId>`, the rest signals, bench/burst/floor-burst.ts); the deposit reads its deposit
 * and its trade (the trust rule's two reads, no-op activities here), then reports to its journey
 * (`customer/<externalId>`) once, by signal. The journey counts each deposit once and ends when it has
 * counted them all.
 */
import { condition, getExternalWorkflowHandle, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { FloorActivities } from './activities';
import { depositFloorReportSignal, depositWebhooks, floorEventSignal } from './messages';

const { step } = proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });

export async function depositFloorDeposit(journeyId: string): Promise<void> {
  const received = new Set<string>();
  setHandler(floorEventSignal, (event) => void received.add(event));
  const [first, ...rest] = depositWebhooks('ONRAMP');
  await condition(() => received.has(first!));
  await step(); // the read of the deposit
  await condition(() => rest.every((event) => received.has(event)));
  await step(); // the read of the trade
  await getExternalWorkflowHandle(journeyId).signal(depositFloorReportSignal, { depositId: workflowInfo().workflowId });
}

export async function depositFloorJourney(deposits: number): Promise<void> {
  const counted = new Set<string>();
  setHandler(depositFloorReportSignal, ({ depositId }) => void counted.add(depositId));
  await condition(() => counted.size >= deposits);
}
