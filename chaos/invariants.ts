/**
 * What must hold at the end of a chaos run, each checked against the service's own records (the
 * sandbox, through the partner API, after the run's rate window closed), rampflow's histories and
 * visibility, and what the partner endpoint and the receiver saw. Each row is OK or the evidence, with
 * the ids involved.
 */
import type { Client } from '@temporalio/client';
import { DEFAULT_RECEIVER_BUDGET } from '../webhooks/receiver-budget';
import type { RampClient } from '../ramp';
import { streamOf, type PartnerEvent } from '../partner-events/catalogue';
import { isPaymentFailed, isPaymentSettled } from '../workflows/common/records';
import { RampStage } from '../observability/search-attributes';
import type { ReceivedDelivery, TestPartnerEndpoint } from '../test/support/partner-endpoint';
import { payoutReferenceOf, type CustomerProgress } from './customers';
import { withDepositStories } from './deposit-stories';
import type { ForgerReport } from './forger';
import type { EventStoreReading, StoredPartnerEvent } from './partner-api';
import { certainBusiestSecond, earliestArrival, type Stall } from './loop-stalls';
import type { ServiceRequest } from './stack';
import type { Crash, MemoryPeak } from './worker-pool';

export interface InvariantRow {
  name: string;
  /** Empty when it held. */
  evidence: string[];
}

export interface RunRecord {
  client: Client;
  ramp: RampClient;
  customers: CustomerProgress[];
  endpoint: TestPartnerEndpoint;
  serviceRequests: ServiceRequest[];
  /** When the run's process (which hosts the sandbox, and so stamps the service's arrivals) stalled. */
  stalls: readonly Stall[];
  /** The partner event store, read back through the partner API after the play, around a copy of the endpoint's deliveries. */
  eventStore: EventStoreReading;
  callsPerSecond: number;
  forger: ForgerReport;
  receiverStarts: number;
  /** When the partner's endpoint answered 410 Gone (rampflow disabled it), and when the operator enabled it again. */
  endpointGone: GoneWindow[];
  crashes: Crash[];
  /** Each worker's peak resident memory, and the budget each keeps (WORKER_MEMORY_MB). */
  memory: { budgetMiB: number; peaks: MemoryPeak[] };
  /** The most worker processes that ran at any moment between two times (ms). */
  workersBetween(from: number, to: number): number;
}

/** A time the partner's endpoint answered 410 Gone, then accepted again and was enabled by the operator. */
export interface GoneWindow {
  /** When it began answering 410 (ms). */
  from: number;
  /** How many deliveries it had accepted by then. */
  acceptedBefore: number;
  /** When the operator's `partner-events enable` went through (ms); undefined: never. */
  enabledAt?: number;
  /** How many deliveries it had accepted by then: the partner reads what it missed from there on. */
  acceptedBeforeEnabled?: number;
}

export const TOTALS_ROW =
  "each journey's completed totals equal the service's completed, not-refunded deposits; a cancelled one CLOSED with none; one started again after retention counts anew";
export const PAYOUTS_ROW = "every payout's last payout.* event matches the service's payment";
export const STORE_ROW = 'every stream as the event store keeps it reached the endpoint, tail included';
export const GENUINE_ROW = 'every partner event reports something the service did (no id only the forger sent)';

/** A stage a workflow may stay in at the end: parked with a reason an operator can act on. */
const PARKED_STAGES = new Set(['NEEDS_ATTENTION', 'EVENT_UNROUTED']);
/** A pending activity this far into its attempts is a retry loop, not a wait. */
const RETRY_LOOP_ATTEMPTS = 3;
/** At most this many lines of evidence a row, the rest counted. */
const EVIDENCE_LINES = 10;

export async function checkInvariants(record: RunRecord): Promise<InvariantRow[]> {
  const service = await readService(record.ramp, record.customers);
  // What the partner has: what its endpoint accepted, and what it read through GET /events because
  // a 410 Gone disabled the endpoint meanwhile (as docs/integrating/partner-events.md tells it to).
  const pulled = missedWhileGone(record.eventStore.storedBefore, record.endpoint.accepted, record.endpointGone);
  const partnerHas = [...record.eventStore.delivered, ...pulled.map((event) => ({ webhookId: event.id, event }))];
  const rows: InvariantRow[] = [
    {
      name: 'every workflow ended, parked with a named reason, or an ACTIVE journey waiting',
      evidence: await workflowsAtRest(record),
    },
    { name: TOTALS_ROW, evidence: await totalsMatch(record, service) },
    {
      name: 'partner event streams gap-free, in order, verified; deposit.completed once per completed deposit',
      evidence: await withDepositStories(record.client, streamsDelivered(record, service, pulled)),
    },
    {
      name: 'every refund of a completed deposit reported deposit.reversed, once; no other deposit reversed',
      evidence: await withDepositStories(record.client, refundsReported(partnerHas, service.deposits)),
    },
    { name: PAYOUTS_ROW, evidence: await payoutsReported(record, partnerHas) },
    { name: STORE_ROW, evidence: storeDelivered(record.eventStore, new Set(pulled.map((event) => event.id))) },
    {
      name: GENUINE_ROW,
      evidence: eventsGenuine(partnerHas, service.allIds, accountIdsOf(record.customers), record.forger.forgedIds),
    },
    {
      name: `the service saw at most RAMP_MAX_CALLS_PER_SECOND (${record.callsPerSecond}) calls in any second`,
      evidence: rateHeld(record),
    },
    {
      name: "workflows started by forged deliveries under the receiver's start budget",
      evidence: await forgedStartsBounded(record, service),
    },
    {
      name: 'no process crashed except those the schedule killed; each stopped one exited cleanly',
      evidence: record.crashes.map(
        (crash) =>
          `worker ${crash.worker} ${crash.stop ?? `exited ${crash.code ?? crash.signal}`}: ${crash.outputTail.slice(-300).replace(/\s+/g, ' ')}`,
      ),
    },
    {
      name: `each worker's resident memory stayed inside WORKER_MEMORY_MB (${record.memory.budgetMiB} MiB)`,
      evidence: memoryWithinBudget(record.memory),
    },
  ];
  return rows.map((row) => ({
    ...row,
    evidence:
      row.evidence.length > EVIDENCE_LINES
        ? [...row.evidence.slice(0, EVIDENCE_LINES), `... and ${row.evidence.length - EVIDENCE_LINES} more`]
        : row.evidence,
  }));
}

/** Every worker read at least once (a run with none read proves nothing), none above its budget. */
export function memoryWithinBudget({ budgetMiB, peaks }: RunRecord['memory']): string[] {
  if (peaks.length === 0) return ["no worker's resident memory could be read (/proc)"];
  return peaks
    .filter(({ peakMiB }) => peakMiB > budgetMiB)
    .map(({ worker, peakMiB }) => `worker ${worker} peaked at ${peakMiB.toFixed(0)} MiB resident`);
}

export interface ServiceDeposit {
  id: string;
  customerId: string;
  status: string;
  currency: string;
  amount: string;
  /** Its trade settled and, for a payout, the payment too: the money arrived where the customer asked. */
  completed: boolean;
  /** It completed, then the service refunded it (REJECTED now, its trade and payment settled). */
  refundedAfterCompleting: boolean;
}

interface ServiceRecords {
  deposits: ServiceDeposit[];
  /** The ids of the run's customers, their deposits, and every trade and payment of the partner. */
  allIds: Set<string>;
}

/** The service's deposits of the run's customers, each with whether its trade (and payment) settled. */
async function readService(ramp: RampClient, customers: CustomerProgress[]): Promise<ServiceRecords> {
  const trades = new Map<string, { id: string; status: string; paymentId?: string }>();
  for await (const item of ramp.trades.iterate({ pageSize: 100 })) {
    const trade = await ramp.trades.detail({ id: item.id });
    trades.set(trade.deposit.id, {
      id: trade.id,
      status: trade.status,
      ...(typeof trade.paymentId === 'string' ? { paymentId: trade.paymentId } : {}),
    });
  }
  const deposits: ServiceDeposit[] = [];
  const allIds = new Set<string>();
  for (const trade of trades.values()) if (trade.paymentId) allIds.add(trade.paymentId);
  for await (const payment of ramp.payments.iterate({ pageSize: 100 })) allIds.add(payment.id);
  for (const customer of customers) {
    if (!customer.customerId) continue;
    allIds.add(customer.customerId);
    for await (const deposit of ramp.deposits.iterate({ customerId: customer.customerId, pageSize: 100 })) {
      allIds.add(deposit.id);
      const trade = trades.get(deposit.id);
      if (trade) allIds.add(trade.id);
      let settled = trade?.status === 'SETTLED';
      // The list leaves the type out: the detail says whether crypto came in (a payout follows).
      if (settled && (await ramp.deposits.detail({ id: deposit.id })).type !== 'FIAT')
        settled =
          trade?.paymentId !== undefined &&
          isPaymentSettled((await ramp.payments.detail({ id: trade.paymentId })).status);
      deposits.push({
        id: deposit.id,
        customerId: customer.customerId,
        status: deposit.status,
        currency: String(deposit.currency),
        amount: String(deposit.amount),
        completed: deposit.status === 'CONFIRMED' && settled,
        // Only a confirmed deposit gets a trade: REJECTED with a settled trade is a refund after completion.
        refundedAfterCompleting: deposit.status === 'REJECTED' && settled,
      });
    }
  }
  return { deposits, allIds };
}

async function workflowsAtRest(record: RunRecord): Promise<string[]> {
  const evidence: string[] = [];
  const kycPending = new Set(
    record.customers.filter((customer) => customer.plan.kyc === 'PENDING').map((customer) => customer.plan.externalId),
  );
  for await (const execution of record.client.workflow.list({ query: "ExecutionStatus = 'Running'" })) {
    const stage = execution.typedSearchAttributes.get(RampStage) ?? '(no stage)';
    const type = execution.type;
    const id = execution.workflowId;
    const description = await record.client.workflow.getHandle(id).describe();
    const looping = (description.raw.pendingActivities ?? []).filter(
      (activity) => (activity.attempt ?? 0) >= RETRY_LOOP_ATTEMPTS,
    );
    for (const activity of looping)
      evidence.push(
        `${type} ${id}: retrying ${activity.activityType?.name} (attempt ${activity.attempt}): ${activity.lastFailure?.message ?? ''}`,
      );
    if (PARKED_STAGES.has(stage)) continue;
    // A reconciliation pass ends by itself and its schedule starts the next; one stuck shows above as a looping call.
    if (type === 'reconcileWithService') continue;
    if (type === 'customerJourney' && stage === 'ACTIVE') continue;
    if (type === 'customerJourney' && stage === 'AWAITING_KYC' && kycPending.has(id.replace(/^customer\//, '')))
      continue;
    evidence.push(`${type} ${id}: still running at ${stage}`);
  }
  return evidence;
}

const sum = (amounts: string[]): number => amounts.reduce((total, amount) => total + Number(amount), 0);
const same = (a: number, b: number): boolean => Math.abs(a - b) < 1e-9;

async function totalsMatch(record: RunRecord, service: ServiceRecords): Promise<string[]> {
  const cancelled = record.customers.filter((customer) => customer.journeyCancelled);
  const evidence: string[] = [];
  if (cancelled.length > 0) {
    const atService = new Set<string>();
    for await (const customer of record.ramp.customers.iterate({ pageSize: 100 }))
      if (customer.externalId) atService.add(customer.externalId);
    evidence.push(...cancelledJourneysEmpty(cancelled, atService));
  }
  for (const customer of record.customers) {
    const { externalId } = customer.plan;
    if (!customer.customerId) continue;
    if (customer.plan.closesAndReturns) {
      evidence.push(...returnedJourneyCountsAnew(customer));
      continue;
    }
    const state = customer.lastState;
    if (!state) {
      evidence.push(`${externalId}: the journey never answered`);
      continue;
    }
    const theirs = service.deposits.filter(
      (deposit) => deposit.customerId === customer.customerId && deposit.completed,
    );
    const currencies = new Set([
      ...Object.keys(state.deposits.completedTotals),
      ...theirs.map((deposit) => deposit.currency),
    ]);
    for (const currency of currencies) {
      const journey = Number(state.deposits.completedTotals[currency] ?? '0');
      const atService = sum(theirs.filter((deposit) => deposit.currency === currency).map((deposit) => deposit.amount));
      if (!same(journey, atService)) {
        evidence.push(
          `${externalId} (customer ${customer.customerId}) ${currency}: journey ${journey}, service ${atService} (deposits ${theirs.map((deposit) => deposit.id).join(',') || 'none'})`,
        );
      }
    }
  }
  return evidence;
}

/**
 * A customer closed, its journey removed as retention would, and signed up again: the new journey
 * counts from its own start. The customer pays nothing in after it returns (its plan), so the new
 * journey counts nothing: a deposit of the removed journey's life counted again (a late report, a
 * repair, a look-up by customer id that found the new journey) would show here. One that has not
 * signed up again yet is the first row's to report.
 */
export function returnedJourneyCountsAnew(
  customer: Pick<CustomerProgress, 'plan' | 'signups' | 'lastState'>,
): string[] {
  if (customer.signups < 2 || customer.lastState === undefined) return [];
  const counted = Object.entries(customer.lastState.deposits.completedTotals).filter(
    ([, amount]) => Number(amount) !== 0,
  );
  return counted.length === 0
    ? []
    : [
        `${customer.plan.externalId}: signed up again after its journey was removed, and the new journey counts ${counted.map(([currency, amount]) => `${amount} ${currency}`).join(', ')} completed, all of it paid in before`,
      ];
}

/**
 * A journey the operator cancelled at its park (its customer's create refused): CLOSED, nothing
 * counted, and no customer of its externalId at the service, so no deposit either.
 */
export function cancelledJourneysEmpty(
  cancelled: readonly Pick<CustomerProgress, 'plan' | 'lastState'>[],
  externalIdsAtService: ReadonlySet<string>,
): string[] {
  return cancelled.flatMap(({ plan: { externalId }, lastState }) => {
    const evidence: string[] = [];
    if (lastState?.stage !== 'CLOSED')
      evidence.push(`${externalId}: cancelled by the operator, its journey ${lastState?.stage ?? 'never answered'}`);
    const counted = Object.entries(lastState?.deposits.completedTotals ?? {}).filter(
      ([, amount]) => Number(amount) !== 0,
    );
    if (counted.length > 0)
      evidence.push(
        `${externalId}: cancelled, its journey counts ${counted.map(([currency, amount]) => `${amount} ${currency}`).join(', ')}`,
      );
    if (externalIdsAtService.has(externalId))
      evidence.push(`${externalId}: cancelled before its customer was created, yet the service has one`);
    return evidence;
  });
}

/**
 * The events the partner's endpoint missed because a 410 Gone disabled it, which the partner reads
 * through GET /events instead, once it is enabled again (docs/integrating/partner-events.md: nothing
 * recorded while it is disabled is pushed to it by the run that recorded it): of each stream, those
 * after the last it had accepted when it began answering 410, recorded before the operator enabled it
 * again and not accepted by then. Everything else is owed to it. A later run of the stream (the
 * customer signed up again, a reset) may push them after all: the partner has them already.
 */
export function missedWhileGone(
  stored: readonly StoredPartnerEvent[],
  accepted: readonly ReceivedDelivery[],
  windows: readonly GoneWindow[],
): StoredPartnerEvent[] {
  if (windows.length === 0) return [];
  const gotByEnable = windows.map(
    (window) =>
      new Set(accepted.slice(0, window.acceptedBeforeEnabled ?? accepted.length).map(({ event }) => event.id)),
  );
  const reachedBefore = windows.map((window) => {
    const through = new Map<string, number>();
    for (const { event } of accepted.slice(0, window.acceptedBefore))
      through.set(streamOf(event), Math.max(through.get(streamOf(event)) ?? 0, event.sequence));
    return through;
  });
  return stored.filter((event) =>
    windows.some(
      (window, index) =>
        !gotByEnable[index]!.has(event.id) &&
        event.sequence > (reachedBefore[index]!.get(streamOf(event)) ?? 0) &&
        (window.enabledAt === undefined || Date.parse(event.timestamp) <= window.enabledAt),
    ),
  );
}

/**
 * Each stream's first deliveries of each event id, in arrival order, must be 1, 2, 3, ... (nothing
 * skipped, nothing early), passing over those the partner read through GET /events after a 410
 * (`pulled`): a later delivery of one of those is a repeat of what it has.
 */
export function deliveredInOrder(
  accepted: readonly ReceivedDelivery[],
  pulled: readonly StoredPartnerEvent[],
): string[] {
  const evidence: string[] = [];
  const read = new Set(pulled.map((event) => `${streamOf(event)}#${event.sequence}`));
  const readIds = new Set(pulled.map((event) => event.id));
  for (const [stream, events] of delivered(accepted)) {
    const sequences = events.filter((event) => !readIds.has(event.id)).map((event) => event.sequence);
    let expected = 1;
    for (const [index, sequence] of sequences.entries()) {
      while (expected < sequence && read.has(`${stream}#${expected}`)) expected += 1;
      if (sequence !== expected) {
        evidence.push(
          `stream ${stream}: delivered #${sequences.slice(0, index + 1).join(', #')} (expected #${expected} at position ${index + 1})`,
        );
        break;
      }
      expected += 1;
    }
  }
  return evidence;
}

function streamsDelivered(record: RunRecord, service: ServiceRecords, pulled: readonly StoredPartnerEvent[]): string[] {
  const { endpoint } = record;
  const evidence: string[] = [];
  if (endpoint.rejected > 0) evidence.push(`${endpoint.rejected} deliveries did not verify`);
  evidence.push(...deliveredInOrder(endpoint.accepted, pulled));
  const completedEvents = new Map<string, Set<string>>();
  for (const { event } of [...endpoint.accepted, ...pulled.map((event) => ({ event }))]) {
    if (event.type !== 'deposit.completed') continue;
    const depositId = (event.data as { depositId: string }).depositId;
    completedEvents.set(depositId, (completedEvents.get(depositId) ?? new Set()).add(event.id));
  }
  for (const deposit of service.deposits) {
    const reported = completedEvents.get(deposit.id)?.size ?? 0;
    // A deposit refunded after it completed was reported completed once (then reversed: the next row).
    const expected = deposit.completed || deposit.refundedAfterCompleting ? 1 : 0;
    if (reported !== expected)
      evidence.push(
        `deposit ${deposit.id} (${deposit.status}, ${deposit.completed ? 'completed' : 'not completed'} at the service): ${reported} deposit.completed event ids`,
      );
  }
  for (const depositId of completedEvents.keys()) {
    if (!service.allIds.has(depositId))
      evidence.push(`deposit.completed for ${depositId}, which the service does not have`);
  }
  return evidence;
}

/** The endpoint's accepted events per stream: the first delivery of each event id, in arrival order. */
function delivered(accepted: readonly ReceivedDelivery[]): Map<string, PartnerEvent[]> {
  const streams = new Map<string, PartnerEvent[]>();
  const seen = new Set<string>();
  for (const { event } of accepted) {
    if (seen.has(event.id)) continue;
    seen.add(event.id);
    const stream = streamOf(event);
    streams.set(stream, [...(streams.get(stream) ?? []), event]);
  }
  return streams;
}

/** Distinct event ids of one type, per the deposit its data names. */
function eventIdsByDeposit(
  accepted: readonly ReceivedDelivery[],
  type: PartnerEvent['type'],
): Map<string, Set<string>> {
  const byId = new Map<string, Set<string>>();
  for (const { event } of accepted) {
    if (event.type !== type) continue;
    const id = (event.data as { depositId?: unknown }).depositId;
    if (typeof id === 'string') byId.set(id, (byId.get(id) ?? new Set()).add(event.id));
  }
  return byId;
}

export function refundsReported(delivered: readonly ReceivedDelivery[], deposits: readonly ServiceDeposit[]): string[] {
  const evidence: string[] = [];
  const reversed = eventIdsByDeposit(delivered, 'deposit.reversed');
  for (const deposit of deposits) {
    const reported = reversed.get(deposit.id)?.size ?? 0;
    if (deposit.refundedAfterCompleting && reported !== 1)
      evidence.push(`deposit ${deposit.id} (refunded after it completed): ${reported} deposit.reversed event ids`);
    // Refunded before it completed may be reversed too (it was confirmed); one still CONFIRMED never.
    if (deposit.status !== 'REJECTED' && reported > 0)
      evidence.push(
        `deposit ${deposit.id} (${deposit.status} at the service, not refunded): ${reported} deposit.reversed event ids`,
      );
  }
  for (const depositId of reversed.keys()) {
    if (!deposits.some((deposit) => deposit.id === depositId))
      evidence.push(`deposit.reversed for ${depositId}, which the service does not have`);
  }
  return evidence;
}

/**
 * Per payout the run started: the last payout.* event the endpoint accepted (by sequence) against
 * the service's payment under its reference. Settled: payout.settled; failed: payout.failed; none
 * (refused, then cancelled): payout.failed; none left parked, or still pending: no payout.* event.
 */
async function payoutsReported(record: RunRecord, partnerHas: readonly ReceivedDelivery[]): Promise<string[]> {
  const evidence: string[] = [];
  const streams = delivered(partnerHas);
  for (const customer of record.customers) {
    if (!customer.payoutStarted) continue;
    const reference = payoutReferenceOf(customer.plan);
    const payments: { id: string; status: string }[] = [];
    for await (const payment of record.ramp.payments.iterate({ reference, pageSize: 100 }))
      if (payment.reference === reference) payments.push(payment);
    const events = (streams.get(`payout/${reference}`) ?? []).filter((event) => event.type.startsWith('payout.'));
    const last = events.reduce<PartnerEvent | undefined>(
      (latest, event) => (latest && latest.sequence > event.sequence ? latest : event),
      undefined,
    );
    const settled = payments.filter((payment) => isPaymentSettled(payment.status));
    const open = payments.filter((payment) => !isPaymentSettled(payment.status) && !isPaymentFailed(payment.status));
    const expected =
      settled.length > 0
        ? 'payout.settled'
        : open.length > 0
          ? undefined
          : payments.length > 0 || customer.payoutState?.stage === 'CANCELLED'
            ? 'payout.failed'
            : undefined;
    const atService = payments.map((payment) => `${payment.id} ${payment.status}`).join(', ') || 'no payment';
    if (settled.length > 1) evidence.push(`payout ${reference}: ${settled.length} settled payments (${atService})`);
    if (last?.type !== expected)
      evidence.push(
        `payout ${reference}: last event ${last?.type ?? 'none'} (${events.length} payout events), the service has ${atService}; expected ${expected ?? 'none'}`,
      );
  }
  return evidence;
}

/**
 * Each stream as the store keeps it (the source of every delivery): gap-free from #1, and every event
 * of it accepted by the endpoint, the last included (but those `readAfterGone`: missedWhileGone); the
 * endpoint got nothing the store does not have.
 */
export function storeDelivered(reading: EventStoreReading, readAfterGone: ReadonlySet<string> = new Set()): string[] {
  const evidence: string[] = [];
  const { storedBefore, delivered: accepted, storedAfter } = reading;
  if (storedBefore.length === 0) return ['the event store holds no event: the row checks nothing'];
  const byStream = (events: StoredPartnerEvent[]) => {
    const streams = new Map<string, StoredPartnerEvent[]>();
    for (const event of events) streams.set(streamOf(event), [...(streams.get(streamOf(event)) ?? []), event]);
    return streams;
  };
  const stored = byStream(storedBefore);
  const arrived = delivered(accepted);
  for (const [stream, events] of stored) {
    const sequences = events.map((event) => event.sequence).sort((a, b) => a - b);
    const gap = sequences.findIndex((sequence, index) => sequence !== index + 1);
    if (gap >= 0)
      evidence.push(
        `stream ${stream}: the store keeps #${sequences.join(', #')} (a gap or repeat at position ${gap + 1})`,
      );
    const got = new Set((arrived.get(stream) ?? []).map((event) => event.id));
    const missing = events.filter((event) => !got.has(event.id) && !readAfterGone.has(event.id));
    if (missing.length > 0)
      evidence.push(
        `stream ${stream}: stored #1..#${Math.max(...sequences)}, the endpoint never got ${missing.map((event) => `#${event.sequence} ${event.type} ${event.id}`).join(', ')}`,
      );
  }
  const later = byStream(storedAfter);
  const storedIds = new Set(storedAfter.map((event) => event.id));
  for (const [stream, events] of arrived) {
    for (const event of events) {
      if (storedIds.has(event.id)) continue;
      const there = later.get(stream)?.find((held) => held.sequence === event.sequence);
      evidence.push(
        `stream ${stream}: the endpoint got #${event.sequence} ${event.type} ${event.id} at ${event.timestamp}, which the store does not have (it keeps ${there ? `${there.type} ${there.id} at ${there.timestamp}` : 'nothing'} at #${event.sequence})`,
      );
    }
  }
  return evidence;
}

/** Fields of an event's data that name a record of the service's. */
const SERVICE_ID_FIELDS = ['depositId', 'tradeId', 'paymentId'] as const;

/**
 * Every event the endpoint accepted names only what the service has: its deposit, trade and payment
 * ids, the accounts it showed (ids of the customer's virtual account and deposit address), and no id
 * anywhere in it that only the forger sent.
 */
export function eventsGenuine(
  delivered: readonly ReceivedDelivery[],
  serviceIds: ReadonlySet<string>,
  accountIds: readonly string[],
  forgedIds: ReadonlySet<string>,
): string[] {
  const evidence: string[] = [];
  const known = new Set([...serviceIds, ...accountIds]);
  const seen = new Set<string>();
  for (const { event } of delivered) {
    if (seen.has(event.id)) continue;
    seen.add(event.id);
    const data = event.data as Record<string, unknown>;
    for (const field of SERVICE_ID_FIELDS) {
      const id = data[field];
      if (typeof id === 'string' && !serviceIds.has(id))
        evidence.push(
          `${event.type} ${event.id} (stream ${streamOf(event)}): ${field} ${id}, which the service does not have`,
        );
    }
    for (const id of stringsIn(event.data)) {
      if (forgedIds.has(id) && !known.has(id))
        evidence.push(`${event.type} ${event.id} (stream ${streamOf(event)}): names ${id}, an id only the forger sent`);
    }
  }
  return evidence;
}

/** The receiving accounts the customers' journeys showed (the service's, read by the journey). */
function accountIdsOf(customers: readonly CustomerProgress[]): string[] {
  return customers
    .flatMap(({ lastState }) => [lastState?.onramp?.virtualAccount?.id, lastState?.offramp?.depositAddress?.id])
    .filter((id): id is string => id !== undefined);
}

/** Every string anywhere in a value (an event's data is small: a few fields, one level of nesting). */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

/**
 * The service's busiest second. A breach is counted only on calls that certainly arrived within one
 * second: a call stamped during a stall of the run's process may have arrived as early as its start
 * (chaos/loop-stalls.ts), so as stamped a stall can crowd calls of two seconds into one.
 */
export function rateHeld(
  record: Pick<RunRecord, 'serviceRequests' | 'stalls' | 'callsPerSecond' | 'workersBetween'>,
): string[] {
  const arrivals = record.serviceRequests
    .filter((line) => !line.path.startsWith('/sandbox/'))
    .map((line) => ({ stampedAt: line.receivedAt, earliest: earliestArrival(line.receivedAt, record.stalls) }));
  const certain = certainBusiestSecond(arrivals);
  if (certain.calls <= record.callsPerSecond) return [];
  return [
    `${certain.calls} calls in the second from ${new Date(certain.from).toISOString()}, with up to ${record.workersBetween(certain.from, certain.from + 1_000)} worker processes running`,
  ];
}

async function forgedStartsBounded(record: RunRecord, service: ServiceRecords): Promise<string[]> {
  const { forger } = record;
  if (forger.sent === 0) return ['the forger sent nothing: the row checks nothing'];
  const { starts } = DEFAULT_RECEIVER_BUDGET;
  // The budget lives in the receiver's memory: each receiver start begins with a full burst.
  const seconds = (forger.endedAt - forger.startedAt) / 1000;
  const bound = Math.ceil(record.receiverStarts * starts.burst + starts.perSecond * seconds);
  const forgedStarts: string[] = [];
  const since = new Date(forger.startedAt).toISOString();
  for await (const execution of record.client.workflow.list({
    query: `WorkflowType IN ('rampEvent', 'depositLifecycle') AND StartTime >= '${since}'`,
  })) {
    const id = execution.workflowId.split('/').at(-1)!;
    if (forger.forgedIds.has(id) && !service.allIds.has(id)) forgedStarts.push(execution.workflowId);
  }
  return forgedStarts.length > bound
    ? [
        `${forgedStarts.length} workflows started by forgeries, over ${bound} (${record.receiverStarts} receiver starts x ${starts.burst} + ${starts.perSecond}/s x ${seconds.toFixed(0)} s): ${forgedStarts.slice(0, 5).join(', ')}`,
      ]
    : [];
}
