/**
 * The deposit delivery as an activity, for the workflows that route events and reconcile
 * (client/deposit-delivery.ts does the signal-with-start).
 */
import { Context } from '@temporalio/activity';
import { deliverToDeposit, type DeliveryOutcome, type DepositDelivery } from '../client/deposit-delivery';
import type { DepositTimings } from '../workflows/schemas';

export type { DeliveryOutcome, DepositDelivery } from '../client/deposit-delivery';

export interface DepositDeliveryOptions {
  /** The timings new deposit workflows start with (production defaults when undefined). */
  depositTimings?: Partial<DepositTimings>;
}

export function createDepositDeliveryActivities(options: DepositDeliveryOptions = {}) {
  return {
    async deliverToDeposit(delivery: DepositDelivery): Promise<DeliveryOutcome> {
      const { client, info } = Context.current();
      return deliverToDeposit({ client, taskQueue: info.taskQueue, depositTimings: options.depositTimings }, delivery);
    },
  };
}

export type DepositDeliveryActivities = ReturnType<typeof createDepositDeliveryActivities>;
