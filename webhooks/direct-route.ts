/**
 * Direct routing: the receiver signals an event's target itself, from the delivered payload, so a
 * webhook costs one Temporal action (a signal, or a deposit's signal-with-start) and no service call.
 * Each routed key is remembered, so a repeat delivery to this process costs nothing (a repeat that
 * reaches another replica is one more signal, which the target ignores: it applies each key once).
 *
 * Why the payload may stand in for the record here: a delivery reaches this code only through the
 * secret path token (webhooks/secret-token.ts) and the source-IP policy, so it comes from the service
 * or from someone holding the token; the payload has the detail endpoint's schema (interface, release
 * 2026-03-22); and every target applies a record only forward (workflows/status-order.ts), so a late
 * snapshot changes nothing.
 *
 * Payloads only move workflows forward; nothing ends on one. An event whose payload would end or park
 * its target (a rejection, a deletion, a failed trade) takes the ramp-event workflow's re-read, and a
 * deposit reads its completing trade or payment from the service first (workflows/deposit.ts). So does
 * any delivery this path is unsure of: a payload that does not parse, a status that does not show what
 * the event says, a customer or trade this process has not seen yet, a journey that is not running.
 * The ramp-event workflow re-reads the record through the signed API, waits for the target and parks
 * what it cannot place. `WEBHOOK_ROUTING=workflow` sends every delivery there.
 *
 * Nothing here calls the service: the customer behind an account or deposit, and the deposit behind a
 * payment, come from what earlier deliveries to this process said (RoutingMemory).
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { LRUCache } from 'lru-cache';
import { customerRecord, depositAddressRecord, depositRecord, paymentRecord, tradeRecord, virtualAccountRecord } from '../activities/records';
import { deliverToDeposit, type DepositDelivery } from '../client/deposit-delivery';
import { EVENT_RESOURCE, type EventName } from '../ramp/events';
import type { Customer, Deposit, DepositAddress, Payment, Trade, VirtualAccount } from '../ramp';
import { eventPayloadSchema } from '../ramp/schemas/events';
import type { DepositTimings } from '../workflows/deposit-input';
import { serviceConfirms } from '../workflows/event-claims';
import { journeyWorkflowId } from '../workflows/ids';
import type { EventResource } from '../workflows/ramp-event-types';
import { isCustomerApproved, isPaymentSettled } from '../workflows/records';
import { isAccountApproved } from '../workflows/status-order';
import { customerEventSignal, depositAddressEventSignal, virtualAccountEventSignal } from '../workflows/messages';

/** Why a delivery went to the ramp-event workflow instead (a label of rampflow_webhook_workflow_routes_total). */
export const WORKFLOW_ROUTE_REASONS = [
  'configured', // WEBHOOK_ROUTING=workflow
  'ending-event', // a payload that would end or park its target (a rejection, a deletion, a failed trade)
  'unknown-event', // an event name rampflow does not know: the workflow parks it
  'payload-mismatch', // the payload does not have its resource's schema
  'unconfirmed', // the payload's status does not show what the event says
  'not-ours', // a customer without an externalId: the workflow re-reads and parks it
  'unknown-customer', // an account event of a customer this process has not seen
  'unknown-trade', // a payment whose reference names no trade this process has seen (or a payout)
  'no-target', // the journey is not running (not started yet, or ended)
] as const;
export type WorkflowRouteReason = (typeof WORKFLOW_ROUTE_REASONS)[number];

/**
 * The statuses a payload may move a target to: none that ends or parks it (a rejection, a deletion, a
 * failed trade). An event whose payload shows another status is never taken on the payload's word.
 */
const FORWARD_ONLY: Record<EventResource, (status: string) => boolean> = {
  customer: isCustomerApproved,
  virtualAccount: isAccountApproved,
  depositAddress: isAccountApproved,
  deposit: (status) => status !== 'REJECTED',
  trade: (status) => ['CREATED', 'PENDING', 'SETTLED'].includes(status),
  payment: isPaymentSettled,
};

export type DirectRouteOutcome =
  | { kind: 'signalled' }
  /** This process routed the same key before: nothing to do. */
  | { kind: 'duplicate' }
  /** A deposit's workflow has already finished: nothing left to move (the event workflow would end TARGET_CLOSED). */
  | { kind: 'target-ended' }
  | { kind: 'needs-workflow'; reason: WorkflowRouteReason };

/**
 * What earlier deliveries said about who owns what: a customer's externalId (from its events) and a
 * trade's deposit (from its events). Both facts never change at the service, so they are kept until
 * the cache's bound pushes them out; a miss costs only the ramp-event workflow's re-read.
 */
export class RoutingMemory {
  private readonly externalIds: LRUCache<string, string>;
  private readonly tradeDeposits: LRUCache<string, string>;
  private readonly routedKeys: LRUCache<string, true>;

  /** About 200 bytes an entry: the default 100,000 of each is some 60 MB at most. */
  constructor(maxEntries = 100_000) {
    this.externalIds = new LRUCache({ max: maxEntries });
    this.tradeDeposits = new LRUCache({ max: maxEntries });
    this.routedKeys = new LRUCache({ max: maxEntries });
  }

  /** Whether this process has already delivered the event with this key (`EVENT/payload.id`). */
  wasRouted(key: string): boolean {
    return this.routedKeys.has(key);
  }

  rememberRouted(key: string): void {
    this.routedKeys.set(key, true);
  }

  rememberCustomer(customerId: string, externalId: string): void {
    this.externalIds.set(customerId, externalId);
  }

  externalIdOf(customerId: string): string | undefined {
    return this.externalIds.get(customerId);
  }

  rememberTrade(tradeId: string, depositId: string): void {
    this.tradeDeposits.set(tradeId, depositId);
  }

  depositOfTrade(tradeId: string): string | undefined {
    return this.tradeDeposits.get(tradeId);
  }
}

export interface DirectRouter {
  client: Client;
  taskQueue: string;
  memory: RoutingMemory;
  /** The timings new deposit workflows start with (the worker's DEPOSIT_* settings). */
  depositTimings?: Partial<DepositTimings> | undefined;
}

export async function routeDirectly(router: DirectRouter, event: EventName, key: string, payload: unknown): Promise<DirectRouteOutcome> {
  const { memory } = router;
  if (memory.wasRouted(key)) return { kind: 'duplicate' };
  const outcome = await route(router, event, key, payload);
  if (outcome.kind !== 'needs-workflow') memory.rememberRouted(key);
  return outcome;
}

async function route(router: DirectRouter, event: EventName, key: string, payload: unknown): Promise<DirectRouteOutcome> {
  const parsed = eventPayloadSchema(event).safeParse(payload);
  if (!parsed.success) return { kind: 'needs-workflow', reason: 'payload-mismatch' };
  const { memory } = router;
  const toWorkflow = (reason: WorkflowRouteReason): DirectRouteOutcome => ({ kind: 'needs-workflow', reason });
  const resource = EVENT_RESOURCE[event];
  /** The payload shows what the event says happened, and nothing that would end or park the target. */
  const movesForward = (status: string): boolean => serviceConfirms(event, status) && FORWARD_ONLY[resource](status);
  const verdict = (status: string): WorkflowRouteReason => (serviceConfirms(event, status) ? 'ending-event' : 'unconfirmed');

  /** Signals the customer's journey; a journey that is not running is the workflow's to wait for. */
  async function signalJourney(externalId: string, send: (handle: ReturnType<Client['workflow']['getHandle']>) => Promise<void>): Promise<DirectRouteOutcome> {
    try {
      await send(router.client.workflow.getHandle(journeyWorkflowId(externalId)));
      return { kind: 'signalled' };
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return toWorkflow('no-target');
      throw error;
    }
  }

  async function toDeposit(delivery: DepositDelivery): Promise<DirectRouteOutcome> {
    const outcome = await deliverToDeposit(router, delivery);
    return outcome === 'ENDED' ? { kind: 'target-ended' } : { kind: 'signalled' };
  }

  switch (resource) {
    case 'customer': {
      const record = customerRecord(parsed.data as Customer);
      if (!movesForward(record.status)) return toWorkflow(verdict(record.status));
      if (!record.externalId) return toWorkflow('not-ours');
      memory.rememberCustomer(record.id, record.externalId);
      return signalJourney(record.externalId, (journey) => journey.signal(customerEventSignal, { key, event, record, fromPayload: true }));
    }
    case 'virtualAccount': {
      const account = parsed.data as VirtualAccount;
      const record = virtualAccountRecord(account);
      if (!movesForward(record.status)) return toWorkflow(verdict(record.status));
      const externalId = memory.externalIdOf(account.customerId);
      if (!externalId) return toWorkflow('unknown-customer');
      return signalJourney(externalId, (journey) => journey.signal(virtualAccountEventSignal, { key, event, record, fromPayload: true }));
    }
    case 'depositAddress': {
      const address = parsed.data as DepositAddress;
      const record = depositAddressRecord(address);
      if (!movesForward(record.status)) return toWorkflow(verdict(record.status));
      const externalId = address.customerId ? memory.externalIdOf(address.customerId) : undefined;
      if (!externalId) return toWorkflow('unknown-customer');
      return signalJourney(externalId, (journey) => journey.signal(depositAddressEventSignal, { key, event, record, fromPayload: true }));
    }
    case 'deposit': {
      const record = depositRecord(parsed.data as Deposit);
      if (!movesForward(record.status)) return toWorkflow(verdict(record.status));
      // Without a known externalId the deposit's workflow looks its customer up itself, as it does
      // when reconciliation starts it.
      const externalId = memory.externalIdOf(record.customerId);
      return toDeposit({ depositId: record.id, ...(externalId ? { externalId } : {}), signal: 'deposit', event: { key, event, record, fromPayload: true } });
    }
    case 'trade': {
      const record = tradeRecord(parsed.data as Trade);
      if (!movesForward(record.status) || !record.depositId) return toWorkflow(verdict(record.status));
      memory.rememberTrade(record.id, record.depositId);
      return toDeposit({ depositId: record.depositId, signal: 'trade', event: { key, event, record, fromPayload: true } });
    }
    case 'payment': {
      const record = paymentRecord(parsed.data as Payment);
      if (!movesForward(record.status)) return toWorkflow(verdict(record.status));
      // A payment names the trade it pays out by its reference; a payout's reference names no trade.
      const depositId = record.reference ? memory.depositOfTrade(record.reference) : undefined;
      if (!depositId) return toWorkflow('unknown-trade');
      return toDeposit({ depositId, signal: 'payment', event: { key, event, record, fromPayload: true } });
    }
  }
}
