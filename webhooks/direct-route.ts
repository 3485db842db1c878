/**
 * Direct routing: the receiver signals an event's target itself, so a webhook costs one Temporal
 * action (a signal, or a deposit's signal-with-start) and no service call. What it sends is a hint
 * (workflows/common/trust.ts): the target reads the record the hint names from the service before anything
 * it shows or counts changes, and takes it only when the service links it to the target. So a payload
 * here only decides whom to wake, and a forged one wakes a workflow to read and find nothing new.
 *
 * Who owns a record is never learned from a payload. A customer event wakes the journey of the
 * externalId it names (the journey ignores a hint about any customer but its own); an account event
 * wakes the journey rampflow itself indexed with that customer id (`RampCustomerId`, one visibility
 * query, then remembered); a deposit or trade event wakes `deposit/<id>` (signal-with-start), which
 * reads its own record and finds its journey from it. A payment names no deposit, so it goes to the
 * ramp-event workflow, which reads the payment and its trade and signals the deposit with the
 * service's records.
 *
 * Some deliveries still take the ramp-event workflow's re-read: an event whose payload would end or
 * park its target (a rejection, a deletion, a failed trade), a payload that does not parse, a status
 * that does not show what the event says, a customer without an externalId, an account of a customer
 * no running journey indexes, a journey that is not running. `WEBHOOK_ROUTING=workflow` sends every
 * delivery there.
 *
 * The receiver remembers each delivery it routed (its event key, its target and the payload's
 * fingerprint), so a repeat of the same delivery to this process costs nothing. The target and the
 * payload are part of what it remembers so that a forged delivery that came first, pointed elsewhere
 * or claiming other details, does not use up the genuine one. A copy with one field changed is a new
 * fingerprint but the same claim: the receiver's budget (webhooks/receiver-budget.ts) coalesces it
 * while the same claim to the same target is in flight or was just sent, and keeps each target's
 * hints and the deposits' signal-with-starts to their rates.
 */
import { createHash } from 'node:crypto';
import { type Client, type WorkflowHandle, WorkflowNotFoundError } from '@temporalio/client';
import { LRUCache } from 'lru-cache';
import {
  customerRecord,
  depositAddressRecord,
  depositRecord,
  tradeRecord,
  virtualAccountRecord,
} from '../activities/records';
import { deliverToDeposit, type DepositDelivery } from '../client/deposit-delivery';
import { EVENT_RESOURCE, type EventName } from '../ramp/events';
import type { Customer, Deposit, DepositAddress, Trade, VirtualAccount } from '../ramp';
import type { DepositTimings } from '../workflows/schemas';
import { type EventResource, serviceConfirms } from '../workflows/ramp-event/events';
import {
  customerEventSignal,
  depositAddressEventSignal,
  depositWorkflowId,
  journeyWorkflowId,
  virtualAccountEventSignal,
} from '../workflows/common/messages';
import type { ReceiverBudget } from './receiver-budget';
import { isAccountApproved, isCustomerApproved, isPaymentSettled } from '../workflows/common/records';
import { RampCustomerId, RampExternalId } from '../observability/search-attributes';

/** Why a delivery went to the ramp-event workflow instead (a label of rampflow_webhook_workflow_routes_total). */
export const WORKFLOW_ROUTE_REASONS = [
  'configured', // WEBHOOK_ROUTING=workflow
  'ending-event', // a payload that would end or park its target (a rejection, a deletion, a failed trade)
  'payload-mismatch', // the payload does not have its resource's schema
  'unconfirmed', // the payload's status does not show what the event says
  'not-ours', // a customer without an externalId: the workflow re-reads and parks it
  'unknown-customer', // an account event of a customer no running journey indexes (yet)
  'payment', // a payment names no deposit: which one it pays out takes the service's word
  'no-target', // the journey is not running (not started yet, or ended)
] as const;
export type WorkflowRouteReason = (typeof WORKFLOW_ROUTE_REASONS)[number];

/**
 * The statuses a hint is sent straight to its target with: none that would end or park it (a
 * rejection, a deletion, a failed trade). Those go through the ramp-event workflow's re-read, so a
 * target that still runs code from before the trust rule (which took payloads as records) never ends
 * on one. (Payments all go there anyway: see place().)
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
  /** The same claim to the same target is in flight or was just sent (webhooks/hint-coalescing.ts). */
  | { kind: 'coalesced' }
  /** A deposit's workflow has already finished: nothing left to move (the event workflow would end TARGET_CLOSED). */
  | { kind: 'target-ended' }
  | { kind: 'needs-workflow'; reason: WorkflowRouteReason };

/**
 * What the receiver keeps between deliveries: the (event key, target) pairs it routed, and which
 * journey rampflow itself indexed for a customer id (from visibility, never from a payload). Both are
 * bounded LRUs; a miss costs one visibility query or the ramp-event workflow's re-read.
 */
export class RoutingMemory {
  private readonly journeys: LRUCache<string, string>;
  private readonly routed: LRUCache<string, true>;
  private readonly delivered: LRUCache<string, true>;

  /** About 200 bytes an entry: the default 100,000 of each is some 60 MB at most. */
  constructor(maxEntries = 100_000) {
    this.journeys = new LRUCache({ max: maxEntries });
    this.routed = new LRUCache({ max: maxEntries });
    this.delivered = new LRUCache({ max: maxEntries });
  }

  /** Whether this process has delivered to this target before (so a signal-with-start to it is a signal, not a start). */
  hasDeliveredTo(target: string): boolean {
    return this.delivered.has(target);
  }

  rememberDeliveredTo(target: string): void {
    this.delivered.set(target, true);
  }

  /** Whether this process has already delivered this payload under this key (`EVENT/payload.id`) to this target (`routedKey`). */
  wasRouted(routed: string): boolean {
    return this.routed.has(routed);
  }

  rememberRouted(routed: string): void {
    this.routed.set(routed, true);
  }

  rememberJourney(customerId: string, externalId: string): void {
    this.journeys.set(customerId, externalId);
  }

  journeyOf(customerId: string): string | undefined {
    return this.journeys.get(customerId);
  }
}

interface RoutedDelivery {
  key: string;
  target: string;
  payload: unknown;
}

/** What the memory of routed deliveries is keyed by: the event key, the target and the payload's fingerprint. */
function routedKey({ key, target, payload }: RoutedDelivery): string {
  const fingerprint = createHash('sha256').update(canonicalJson(payload)).digest('base64url').slice(0, 22);
  return `${key} ${target} ${fingerprint}`;
}

/** JSON with object keys sorted, so the same record fingerprints alike whatever order its fields came in. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, field]) => `${JSON.stringify(name)}:${canonicalJson(field)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export interface DirectRouter {
  client: Client;
  taskQueue: string;
  memory: RoutingMemory;
  budget: ReceiverBudget;
  /** The timings new deposit workflows start with (the worker's DEPOSIT_* settings). */
  depositTimings?: Partial<DepositTimings> | undefined;
}

/**
 * `payload` is the delivered payload as parsed against its resource's schema (the receiver parsed it
 * once, in parseDelivery), or undefined when it did not match.
 */
/** `source`: the address the delivery came from, whose share of the receiver's budget it spends. */
export async function routeDirectly(
  router: DirectRouter,
  source: string,
  event: EventName,
  key: string,
  payload: unknown,
): Promise<DirectRouteOutcome> {
  if (payload === undefined) return { kind: 'needs-workflow', reason: 'payload-mismatch' };
  const placed = await place(router, event, payload);
  if (placed.kind === 'needs-workflow') return placed;
  // The record as parsed against its schema; a repeat delivery's fields may come in another order.
  const routed = routedKey({ key, target: placed.target, payload });
  if (router.memory.wasRouted(routed)) return { kind: 'duplicate' };
  const { hints } = router.budget;
  const claim = claimOf(key, payload);
  // A copy of a claim being signalled takes that signal's outcome; one that was not held is sent again.
  for (let joined = hints.join(placed.target, claim); joined; joined = hints.join(placed.target, claim)) {
    if (await joined) return { kind: 'coalesced' };
  }
  let outcome: DirectRouteOutcome;
  try {
    router.budget.toTarget(source, placed.target);
    // A deposit's later events are signals to a workflow its first one started: only a target this
    // process has not delivered to counts against the start rate.
    if (placed.starts && !router.memory.hasDeliveredTo(placed.target)) router.budget.workflowStart(source);
    outcome = await placed.send(key);
  } catch (error) {
    hints.settled(placed.target, claim, false);
    throw error;
  }
  const held = outcome.kind !== 'needs-workflow';
  hints.settled(placed.target, claim, held);
  if (held) {
    router.memory.rememberRouted(routed);
    router.memory.rememberDeliveredTo(placed.target);
  }
  return outcome;
}

/** What a hint claims: the event key (`EVENT/payload.id`) and the status the payload shows. */
function claimOf(key: string, payload: unknown): string {
  const status = (payload as { status?: unknown }).status;
  return `${key} ${typeof status === 'string' ? status : ''}`;
}

/** Where a delivery goes, and how to send it there; or why the ramp-event workflow must take it. */
type Placement =
  /** `starts`: the send is a signal-with-start, which counts against the receiver's start rate. */
  | { kind: 'target'; target: string; starts: boolean; send: (key: string) => Promise<DirectRouteOutcome> }
  | { kind: 'needs-workflow'; reason: WorkflowRouteReason };

async function place(router: DirectRouter, event: EventName, data: unknown): Promise<Placement> {
  const toWorkflow = (reason: WorkflowRouteReason): Placement => ({ kind: 'needs-workflow', reason });
  const resource = EVENT_RESOURCE[event];
  /** The payload shows what the event says happened, and nothing that would end or park the target. */
  const movesForward = (status: string): boolean => serviceConfirms(event, status) && FORWARD_ONLY[resource](status);
  const verdict = (status: string): WorkflowRouteReason =>
    serviceConfirms(event, status) ? 'ending-event' : 'unconfirmed';

  /** Wakes a journey; one that is not running is the workflow's to wait for. */
  const toJourney = (externalId: string, send: (journey: WorkflowHandle, key: string) => Promise<void>): Placement => ({
    kind: 'target',
    target: journeyWorkflowId(externalId),
    starts: false,
    send: async (key) => {
      try {
        await send(router.client.workflow.getHandle(journeyWorkflowId(externalId)), key);
        return { kind: 'signalled' };
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return { kind: 'needs-workflow', reason: 'no-target' };
        throw error;
      }
    },
  });
  const toDeposit = (depositId: string, delivery: (key: string) => DepositDelivery): Placement => ({
    kind: 'target',
    target: depositWorkflowId(depositId),
    starts: true,
    send: async (key) =>
      (await deliverToDeposit(router, delivery(key))) === 'ENDED' ? { kind: 'target-ended' } : { kind: 'signalled' },
  });

  switch (resource) {
    case 'customer': {
      const record = customerRecord(data as Customer);
      if (!movesForward(record.status)) return toWorkflow(verdict(record.status));
      if (!record.externalId) return toWorkflow('not-ours');
      return toJourney(record.externalId, (journey, key) =>
        journey.signal(customerEventSignal, { key, event, record, fromPayload: true }),
      );
    }
    case 'virtualAccount': {
      const account = data as VirtualAccount;
      const record = virtualAccountRecord(account);
      if (!movesForward(record.status)) return toWorkflow(verdict(record.status));
      const externalId = await indexedJourney(router, account.customerId);
      if (!externalId) return toWorkflow('unknown-customer');
      return toJourney(externalId, (journey, key) =>
        journey.signal(virtualAccountEventSignal, { key, event, record, fromPayload: true }),
      );
    }
    case 'depositAddress': {
      const address = data as DepositAddress;
      const record = depositAddressRecord(address);
      if (!movesForward(record.status)) return toWorkflow(verdict(record.status));
      const externalId = address.customerId ? await indexedJourney(router, address.customerId) : undefined;
      if (!externalId) return toWorkflow('unknown-customer');
      return toJourney(externalId, (journey, key) =>
        journey.signal(depositAddressEventSignal, { key, event, record, fromPayload: true }),
      );
    }
    case 'deposit': {
      const record = depositRecord(data as Deposit);
      if (!movesForward(record.status)) return toWorkflow(verdict(record.status));
      return toDeposit(record.id, (key) => ({
        depositId: record.id,
        signal: 'deposit',
        event: { key, event, record, fromPayload: true },
      }));
    }
    case 'trade': {
      const record = tradeRecord(data as Trade);
      if (!movesForward(record.status) || !record.depositId) return toWorkflow(verdict(record.status));
      const depositId = record.depositId;
      return toDeposit(depositId, (key) => ({
        depositId,
        signal: 'trade',
        event: { key, event, record, fromPayload: true },
      }));
    }
    case 'payment':
      return toWorkflow('payment');
  }
}

/**
 * The externalId of the running journey rampflow indexed with this customer id (its own record,
 * learned from its create or look-up), remembered once found; undefined when there is not exactly one.
 */
async function indexedJourney(router: DirectRouter, customerId: string): Promise<string | undefined> {
  const known = router.memory.journeyOf(customerId);
  if (known) return known;
  if (!QUERYABLE_CUSTOMER_ID.test(customerId)) return undefined;
  const found = new Set<string>();
  const query = `WorkflowType = 'customerJourney' AND ExecutionStatus = 'Running' AND ${RampCustomerId.name} = '${customerId}'`;
  for await (const journey of router.client.workflow.list({ query, pageSize: 10 })) {
    const externalId = journey.typedSearchAttributes.get(RampExternalId);
    if (externalId && journey.workflowId === journeyWorkflowId(externalId)) found.add(externalId);
    if (found.size > 1) return undefined;
  }
  const externalId = found.size === 1 ? [...found][0] : undefined;
  if (externalId) router.memory.rememberJourney(customerId, externalId);
  return externalId;
}

/** The service's customer ids are UUIDs; anything else is not put inside a visibility query. */
const QUERYABLE_CUSTOMER_ID = /^[A-Za-z0-9._:@-]{1,128}$/;
