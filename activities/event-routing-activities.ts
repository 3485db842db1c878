/**
 * Activities of the ramp-event workflow: re-read the record an event names through the signed API
 * and work out where it belongs, and ask Temporal whether a target workflow has finished.
 */
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/common';
import type { RampClient } from '../ramp';
import { payoutWorkflowId } from '../workflows/common/messages';
import type { EventResolution, EventResource, TargetWorkflowState } from '../workflows/ramp-event/events';
import { asActivity, DEFAULT_FAILURE_OPTIONS, isNotFound, type FailureOptions } from './failures';
import {
  customerRecord,
  depositAddressRecord,
  depositRecord,
  paymentRecord,
  tradeRecord,
  virtualAccountRecord,
} from './records';

/** Thrown inside a resolution when a record it needs does not exist. */
class RecordMissing extends Error {}

export function createEventRoutingActivities(
  ramp: RampClient,
  failureOptions: FailureOptions = DEFAULT_FAILURE_OPTIONS,
) {
  /** Runs a read, turning the service's "not found" into RecordMissing. */
  async function read<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (isNotFound(error)) throw new RecordMissing();
      throw error;
    }
  }

  /** The journey a customer's records belong to is keyed by the partner's externalId. */
  async function externalIdOf(customerId: string): Promise<string | undefined> {
    const customer = await read(() => ramp.customers.detail({ id: customerId }));
    return customer.externalId ?? undefined;
  }

  const notOurs = (customerId: string): EventResolution => ({
    kind: 'unroutable',
    code: 'NOT_OURS',
    reason: `customer ${customerId} has no externalId, so no rampflow journey`,
    customerId,
  });

  async function resolve(resource: EventResource, payloadId: string): Promise<EventResolution> {
    switch (resource) {
      case 'customer': {
        const record = customerRecord(await read(() => ramp.customers.detail({ id: payloadId })));
        if (!record.externalId) return notOurs(record.id);
        return {
          kind: 'routed',
          status: record.status,
          route: { signal: 'customer', externalId: record.externalId, record },
        };
      }
      case 'virtualAccount': {
        const account = await read(() => ramp.virtualAccounts.detail({ id: payloadId }));
        const externalId = await externalIdOf(account.customerId);
        if (!externalId) return notOurs(account.customerId);
        const record = virtualAccountRecord(account);
        return {
          kind: 'routed',
          status: record.status,
          route: { signal: 'virtualAccount', externalId, customerId: account.customerId, record },
        };
      }
      case 'depositAddress': {
        const address = await read(() => ramp.depositAddresses.detail({ id: payloadId }));
        if (!address.customerId)
          return { kind: 'unroutable', code: 'NOT_OURS', reason: `deposit address ${payloadId} names no customer` };
        const customerId = address.customerId;
        const externalId = await externalIdOf(customerId);
        if (!externalId) return notOurs(customerId);
        const record = depositAddressRecord(address);
        return {
          kind: 'routed',
          status: record.status,
          route: { signal: 'depositAddress', externalId, customerId, record },
        };
      }
      case 'deposit': {
        // Money that arrived is never dropped: a deposit of a customer without an externalId still gets
        // its workflow, which parks for an operator (workflows/deposit/workflow.ts).
        const record = depositRecord(await read(() => ramp.deposits.detail({ id: payloadId })));
        const externalId = await externalIdOf(record.customerId);
        return {
          kind: 'routed',
          status: record.status,
          route: { signal: 'deposit', ...(externalId ? { externalId } : {}), customerId: record.customerId, record },
        };
      }
      case 'trade': {
        const record = tradeRecord(await read(() => ramp.trades.detail({ id: payloadId })));
        return {
          kind: 'routed',
          status: record.status,
          route: { signal: 'trade', depositId: record.depositId!, record },
        };
      }
      case 'payment': {
        const record = paymentRecord(await read(() => ramp.payments.detail({ id: payloadId })));
        // DESIGN: a payment carries no trade or deposit id; its reference names the trade it pays out,
        // or, for a payout from the partner's balance, the payout's own workflow. The fallback the DESIGN
        // allows (bank account, currency and amount within a time window) is not implemented: a payment
        // whose reference names neither is parked for an operator.
        const reference = record.reference;
        if (!reference)
          return {
            kind: 'unroutable',
            code: 'AMBIGUOUS',
            reason: `payment ${payloadId} has no reference to tie it to a trade`,
          };
        let trade;
        try {
          trade = tradeRecord(await read(() => ramp.trades.detail({ id: reference })));
        } catch (error) {
          if (!(error instanceof RecordMissing)) throw error;
          if ((await workflowState(payoutWorkflowId(reference))) !== 'NOT_FOUND')
            return { kind: 'routed', status: record.status, route: { signal: 'payout', reference, record } };
          return {
            kind: 'unroutable',
            code: 'AMBIGUOUS',
            reason: `payment ${payloadId}'s reference names no trade and no payout, so it cannot be tied to a deposit`,
          };
        }
        return {
          kind: 'routed',
          status: record.status,
          route: { signal: 'payment', depositId: trade.depositId!, tradeId: trade.id, record },
        };
      }
    }
  }

  /** Whether a workflow is running, has finished, or was never started. */
  async function workflowState(workflowId: string): Promise<TargetWorkflowState> {
    try {
      const description = await Context.current().client.workflow.getHandle(workflowId).describe();
      return description.status.name === 'RUNNING' ? 'RUNNING' : 'CLOSED';
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return 'NOT_FOUND';
      throw error;
    }
  }

  return {
    /** The service's record behind an event and the workflow it belongs to (the payload is never trusted). */
    async resolveRampEvent(request: { resource: EventResource; payloadId: string }): Promise<EventResolution> {
      return asActivity(async () => {
        try {
          return await resolve(request.resource, request.payloadId);
        } catch (error) {
          if (error instanceof RecordMissing) return { kind: 'record-not-found' };
          throw error;
        }
      }, failureOptions);
    },

    /** Whether a workflow is running, has finished, or was never started (signals cannot tell the last two apart). */
    async describeTargetWorkflow(workflowId: string): Promise<TargetWorkflowState> {
      return workflowState(workflowId);
    },
  };
}

export type EventRoutingActivities = ReturnType<typeof createEventRoutingActivities>;
