/**
 * Delivering an event to a deposit's workflow, starting it if it does not exist yet: one
 * signal-with-start on `deposit/<depositId>`, so the workflow exists exactly once whoever hears of the
 * deposit first (the webhook receiver, the ramp-event workflow, reconciliation) and no event races its
 * creation. Used by the receiver's direct routing and, through an activity, by the workflows.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import type { depositLifecycle } from '../workflows/deposit';
import type { DepositLifecycleRequest, DepositTimings } from '../workflows/deposit-input';
import { depositWorkflowId } from '../workflows/ids';
import { depositEventSignal, paymentEventSignal, tradeEventSignal } from '../workflows/messages';
import { depositKindOf, type DepositRecord, type PaymentRecord, type RampEvent, type TradeRecord } from '../workflows/records';
import { RampCustomerId, RampExternalId, RampStage } from '../workflows/search-attributes';

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
  const deposit = delivery.signal === 'deposit' ? delivery.event.record : undefined;
  const input: DepositLifecycleRequest = {
    depositId: delivery.depositId,
    ...(deposit ? { deposit } : {}),
    ...(delivery.externalId ? { externalId: delivery.externalId } : {}),
    ...(depositTimings ? { timings: depositTimings } : {}),
  };
  // What the starter knows is indexed at start; the workflow indexes what it learns itself.
  const searchAttributes: SearchAttributePair[] = [{ key: RampStage, value: 'RECEIVED' }];
  if (delivery.externalId) searchAttributes.push({ key: RampExternalId, value: delivery.externalId });
  if (delivery.externalId && deposit) searchAttributes.push({ key: RampCustomerId, value: deposit.customerId });
  const common = {
    workflowId: depositWorkflowId(delivery.depositId),
    taskQueue,
    args: [input] as [DepositLifecycleRequest],
    // A finished deposit stays finished: a late event must not start a second run of it.
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    typedSearchAttributes: searchAttributes,
    staticSummary: deposit ? `${deposit.currency} deposit ${deposit.id}` : `deposit ${delivery.depositId}`,
    // Lists read these without a query per deposit (client/visibility.ts); no personal data.
    ...(deposit ? { memo: { kind: depositKindOf(deposit), amount: deposit.amount, currency: deposit.currency } } : {}),
  };
  try {
    switch (delivery.signal) {
      case 'deposit':
        await client.workflow.signalWithStart<typeof depositLifecycle, [RampEvent<DepositRecord>]>('depositLifecycle', { ...common, signal: depositEventSignal, signalArgs: [delivery.event] });
        break;
      case 'trade':
        await client.workflow.signalWithStart<typeof depositLifecycle, [RampEvent<TradeRecord>]>('depositLifecycle', { ...common, signal: tradeEventSignal, signalArgs: [delivery.event] });
        break;
      case 'payment':
        await client.workflow.signalWithStart<typeof depositLifecycle, [RampEvent<PaymentRecord>]>('depositLifecycle', { ...common, signal: paymentEventSignal, signalArgs: [delivery.event] });
        break;
    }
    return 'DELIVERED';
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return 'ENDED';
    throw error;
  }
}
