/**
 * Delivering an event to a deposit's workflow, starting it if it does not exist yet: one
 * signal-with-start on `deposit/<depositId>`, so the workflow exists exactly once whoever hears of the
 * deposit first (the webhook receiver, the ramp-event workflow, reconciliation) and no event races its
 * creation. Used by the receiver's direct routing and, through an activity, by the workflows.
 */
import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import type { depositLifecycle } from '../workflows/deposit/workflow';
import type { DepositLifecycleRequest, DepositTimings } from '../workflows/schemas';
import {
  depositEventSignal,
  depositWorkflowId,
  paymentEventSignal,
  tradeEventSignal,
} from '../workflows/common/messages';
import {
  depositKindOf,
  type DepositRecord,
  type PaymentRecord,
  type RampEvent,
  type TradeRecord,
} from '../workflows/common/records';
import { RampCustomerId, RampExternalId, RampStage } from '../observability/search-attributes';

export type DepositDelivery = { depositId: string; externalId?: string } & (
  | { signal: 'deposit'; event: RampEvent<DepositRecord> }
  | { signal: 'trade'; event: RampEvent<TradeRecord> }
  | { signal: 'payment'; event: RampEvent<PaymentRecord> }
);

/** DELIVERED: signalled (and started if new). ENDED: the deposit's workflow has finished; nothing left to move. */
export type DeliveryOutcome = 'DELIVERED' | 'ENDED';

export interface DepositStarter {
  client: Client;
  taskQueue: string;
  /** The timings new deposit workflows start with (production defaults when undefined). */
  depositTimings?: Partial<DepositTimings> | undefined;
}

export async function deliverToDeposit(starter: DepositStarter, delivery: DepositDelivery): Promise<DeliveryOutcome> {
  const { client, taskQueue, depositTimings } = starter;
  // A payload is a hint (workflows/common/trust.ts): it names the deposit and nothing more. Only a record
  // rampflow read itself goes into the start input, the memo and the index; the workflow reads the
  // rest and indexes it itself.
  const deposit = delivery.signal === 'deposit' && !delivery.event.fromPayload ? delivery.event.record : undefined;
  const input: DepositLifecycleRequest = {
    depositId: delivery.depositId,
    ...(deposit ? { deposit } : {}),
    ...(delivery.externalId ? { externalId: delivery.externalId } : {}),
    ...(depositTimings ? { timings: depositTimings } : {}),
  };
  // What the starter knows is indexed at start; the workflow indexes what it learns itself.
  // A deposit a delivery named shows no stage until it has read the service's record.
  const searchAttributes: SearchAttributePair[] = delivery.event.fromPayload
    ? []
    : [{ key: RampStage, value: 'RECEIVED' }];
  if (delivery.externalId) searchAttributes.push({ key: RampExternalId, value: delivery.externalId });
  if (delivery.externalId && deposit) searchAttributes.push({ key: RampCustomerId, value: deposit.customerId });
  const common = {
    workflowId: depositWorkflowId(delivery.depositId),
    taskQueue,
    args: [input] as [DepositLifecycleRequest],
    typedSearchAttributes: searchAttributes,
    staticSummary: deposit ? `${deposit.currency} deposit ${deposit.id}` : `deposit ${delivery.depositId}`,
    // Lists read these without a query per deposit (client/visibility.ts); no personal data.
    ...(deposit ? { memo: { kind: depositKindOf(deposit), amount: deposit.amount, currency: deposit.currency } } : {}),
  };
  const signalWithStart = async (workflowIdReusePolicy: WorkflowIdReusePolicy): Promise<void> => {
    const options = { ...common, workflowIdReusePolicy };
    switch (delivery.signal) {
      case 'deposit':
        await client.workflow.signalWithStart<typeof depositLifecycle, [RampEvent<DepositRecord>]>('depositLifecycle', {
          ...options,
          signal: depositEventSignal,
          signalArgs: [delivery.event],
        });
        break;
      case 'trade':
        await client.workflow.signalWithStart<typeof depositLifecycle, [RampEvent<TradeRecord>]>('depositLifecycle', {
          ...options,
          signal: tradeEventSignal,
          signalArgs: [delivery.event],
        });
        break;
      case 'payment':
        await client.workflow.signalWithStart<typeof depositLifecycle, [RampEvent<PaymentRecord>]>('depositLifecycle', {
          ...options,
          signal: paymentEventSignal,
          signalArgs: [delivery.event],
        });
        break;
    }
  };
  try {
    // A finished deposit stays finished: a late event must not start a second run of it.
    await signalWithStart(WorkflowIdReusePolicy.REJECT_DUPLICATE);
    return 'DELIVERED';
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  // An ended deposit stays ended, with two exceptions. One dismissed because the service did not have
  // it (yet) is not used up: a later delivery or reconciliation starts it again. One that COMPLETED
  // and that the service's own record (never a payload) now shows REJECTED was refunded: a run of its
  // own reports the reversal to the journey and ends REVERSED.
  const ended = await endedStage(client, common.workflowId);
  const refundOfCompleted = ended === 'COMPLETED' && deposit?.status === 'REJECTED';
  if (ended !== 'DISMISSED' && !refundOfCompleted) return 'ENDED';
  try {
    if (refundOfCompleted) {
      await client.workflow.start<typeof depositLifecycle>('depositLifecycle', {
        ...common,
        args: [
          {
            depositId: delivery.depositId,
            reversalOf: 'COMPLETED',
            ...(depositTimings ? { timings: depositTimings } : {}),
          },
        ],
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
        staticSummary: `refund of deposit ${delivery.depositId}`,
      });
    } else {
      await signalWithStart(WorkflowIdReusePolicy.ALLOW_DUPLICATE);
    }
    return 'DELIVERED';
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return 'ENDED';
    throw error;
  }
}

/** The RampStage an ended deposit workflow ended at; undefined while it runs. */
async function endedStage(client: Client, workflowId: string): Promise<string | undefined> {
  const description = await client.workflow.getHandle(workflowId).describe();
  return description.status.name === 'RUNNING' ? undefined : description.typedSearchAttributes.get(RampStage);
}
