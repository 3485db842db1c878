/**
 * What must hold at the end of a chaos run, each checked against the service's own records (the
 * sandbox, through the partner API, after the run's rate window closed), rampflow's histories and
 * visibility, and what the partner endpoint and the receiver saw. Each row is OK or the evidence, with
 * the ids involved.
 */
import type { Client } from '@temporalio/client';
import { DEFAULT_RECEIVER_BUDGET } from '../webhooks/receiver-budget';
import type { RampClient } from '../ramp';
import { isPaymentSettled } from '../workflows/records';
import { RampStage } from '../observability/search-attributes';
import type { TestPartnerEndpoint } from '../test/support/partner-endpoint';
import type { CustomerProgress } from './customers';
import type { ForgerReport } from './forger';
import type { ServiceRequest } from './stack';
import type { Crash } from './worker-pool';

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
  callsPerSecond: number;
  forger: ForgerReport;
  receiverStarts: number;
  crashes: Crash[];
  /** The most worker processes that ran at any moment between two times (ms). */
  workersBetween(from: number, to: number): number;
}

export const TOTALS_ROW = "each journey's completed totals equal the service's completed, not-refunded deposits";

/** A stage a workflow may stay in at the end: parked with a reason an operator can act on. */
const PARKED_STAGES = new Set(['NEEDS_ATTENTION', 'EVENT_UNROUTED']);
/** A pending activity this far into its attempts is a retry loop, not a wait. */
const RETRY_LOOP_ATTEMPTS = 3;
/** At most this many lines of evidence a row, the rest counted. */
const EVIDENCE_LINES = 10;

export async function checkInvariants(record: RunRecord): Promise<InvariantRow[]> {
  const service = await readService(record.ramp, record.customers);
  const rows: InvariantRow[] = [
    { name: 'every workflow ended, parked with a named reason, or an ACTIVE journey waiting', evidence: await workflowsAtRest(record) },
    { name: TOTALS_ROW, evidence: await totalsMatch(record, service) },
    { name: 'partner event streams gap-free, in order, verified; deposit.completed once per completed deposit', evidence: streamsDelivered(record, service) },
    { name: `the service saw at most RAMP_MAX_CALLS_PER_SECOND (${record.callsPerSecond}) calls in any second`, evidence: rateHeld(record) },
    { name: "workflows started by forged deliveries under the receiver's start budget", evidence: await forgedStartsBounded(record, service) },
    { name: 'no process crashed except those the schedule killed', evidence: record.crashes.map((crash) => `worker ${crash.worker} exited ${crash.code ?? crash.signal}: ${crash.outputTail.slice(-300).replace(/\s+/g, ' ')}`) },
  ];
  return rows.map((row) => ({ ...row, evidence: row.evidence.length > EVIDENCE_LINES ? [...row.evidence.slice(0, EVIDENCE_LINES), `... and ${row.evidence.length - EVIDENCE_LINES} more`] : row.evidence }));
}

interface ServiceDeposit {
  id: string;
  customerId: string;
  status: string;
  currency: string;
  amount: string;
  /** Its trade settled and, for a payout, the payment too: the money arrived where the customer asked. */
  completed: boolean;
}

interface ServiceRecords {
  deposits: ServiceDeposit[];
  allIds: Set<string>;
}

/** The service's deposits of the run's customers, each with whether its trade (and payment) settled. */
async function readService(ramp: RampClient, customers: CustomerProgress[]): Promise<ServiceRecords> {
  const trades = new Map<string, { status: string; paymentId?: string }>();
  for await (const item of ramp.trades.iterate({ pageSize: 100 })) {
    const trade = await ramp.trades.detail({ id: item.id });
    trades.set(trade.deposit.id, { status: trade.status, ...(typeof trade.paymentId === 'string' ? { paymentId: trade.paymentId } : {}) });
  }
  const deposits: ServiceDeposit[] = [];
  const allIds = new Set<string>();
  for (const customer of customers) {
    if (!customer.customerId) continue;
    allIds.add(customer.customerId);
    for await (const deposit of ramp.deposits.iterate({ customerId: customer.customerId, pageSize: 100 })) {
      allIds.add(deposit.id);
      const trade = trades.get(deposit.id);
      let completed = deposit.status === 'CONFIRMED' && trade?.status === 'SETTLED';
      // The list leaves the type out: the detail says whether crypto came in (a payout follows).
      if (completed && (await ramp.deposits.detail({ id: deposit.id })).type !== 'FIAT') completed = trade?.paymentId !== undefined && isPaymentSettled((await ramp.payments.detail({ id: trade.paymentId })).status);
      deposits.push({ id: deposit.id, customerId: customer.customerId, status: deposit.status, currency: String(deposit.currency), amount: String(deposit.amount), completed });
    }
  }
  return { deposits, allIds };
}

async function workflowsAtRest(record: RunRecord): Promise<string[]> {
  const evidence: string[] = [];
  const kycPending = new Set(record.customers.filter((customer) => customer.plan.kyc === 'PENDING').map((customer) => customer.plan.externalId));
  for await (const execution of record.client.workflow.list({ query: "ExecutionStatus = 'Running'" })) {
    const stage = execution.typedSearchAttributes.get(RampStage) ?? '(no stage)';
    const type = execution.type;
    const id = execution.workflowId;
    const description = await record.client.workflow.getHandle(id).describe();
    const looping = (description.raw.pendingActivities ?? []).filter((activity) => (activity.attempt ?? 0) >= RETRY_LOOP_ATTEMPTS);
    for (const activity of looping) evidence.push(`${type} ${id}: retrying ${activity.activityType?.name} (attempt ${activity.attempt}): ${activity.lastFailure?.message ?? ''}`);
    if (PARKED_STAGES.has(stage)) continue;
    if (type === 'customerJourney' && stage === 'ACTIVE') continue;
    if (type === 'customerJourney' && stage === 'AWAITING_KYC' && kycPending.has(id.replace(/^customer\//, ''))) continue;
    evidence.push(`${type} ${id}: still running at ${stage}`);
  }
  return evidence;
}

const sum = (amounts: string[]): number => amounts.reduce((total, amount) => total + Number(amount), 0);
const same = (a: number, b: number): boolean => Math.abs(a - b) < 1e-9;

async function totalsMatch(record: RunRecord, service: ServiceRecords): Promise<string[]> {
  const evidence: string[] = [];
  for (const customer of record.customers) {
    const { externalId } = customer.plan;
    // A journey removed and started again counts from its new start: v0 checks only its state (first row).
    if (!customer.customerId || customer.plan.closesAndReturns) continue;
    const state = customer.lastState;
    if (!state) {
      evidence.push(`${externalId}: the journey never answered`);
      continue;
    }
    const theirs = service.deposits.filter((deposit) => deposit.customerId === customer.customerId && deposit.completed);
    const currencies = new Set([...Object.keys(state.deposits.completedTotals), ...theirs.map((deposit) => deposit.currency)]);
    for (const currency of currencies) {
      const journey = Number(state.deposits.completedTotals[currency] ?? '0');
      const atService = sum(theirs.filter((deposit) => deposit.currency === currency).map((deposit) => deposit.amount));
      if (!same(journey, atService)) {
        evidence.push(`${externalId} (customer ${customer.customerId}) ${currency}: journey ${journey}, service ${atService} (deposits ${theirs.map((deposit) => deposit.id).join(',') || 'none'})`);
      }
    }
  }
  return evidence;
}

function streamsDelivered(record: RunRecord, service: ServiceRecords): string[] {
  const { endpoint } = record;
  const evidence: string[] = [];
  if (endpoint.rejected > 0) evidence.push(`${endpoint.rejected} deliveries did not verify`);
  const streams = new Set(endpoint.accepted.map((delivery) => delivery.event.externalId).filter((externalId): externalId is string => externalId !== undefined));
  for (const externalId of streams) {
    // First delivery of each event id, in arrival order: must be 1, 2, 3, ... (nothing skipped, nothing early).
    const sequences = endpoint.eventsOf(externalId).map((event) => event.sequence);
    const firstWrong = sequences.findIndex((sequence, index) => sequence !== index + 1);
    if (firstWrong >= 0) evidence.push(`stream ${externalId}: delivered #${sequences.slice(0, firstWrong + 1).join(', #')} (expected #${firstWrong + 1} at position ${firstWrong + 1})`);
  }
  const completedEvents = new Map<string, Set<string>>();
  for (const { event } of endpoint.accepted) {
    if (event.type !== 'deposit.completed') continue;
    const depositId = (event.data as { depositId: string }).depositId;
    completedEvents.set(depositId, (completedEvents.get(depositId) ?? new Set()).add(event.id));
  }
  for (const deposit of service.deposits) {
    const reported = completedEvents.get(deposit.id)?.size ?? 0;
    const expected = deposit.completed ? 1 : 0;
    // A deposit refunded after it completed was reported completed once, then reversed.
    const refundedAfter = !deposit.completed && reported === 1 && endpoint.accepted.some(({ event }) => event.type === 'deposit.reversed' && (event.data as { depositId: string }).depositId === deposit.id);
    if (reported !== expected && !refundedAfter) evidence.push(`deposit ${deposit.id} (${deposit.status}, ${deposit.completed ? 'completed' : 'not completed'} at the service): ${reported} deposit.completed event ids`);
  }
  for (const depositId of completedEvents.keys()) {
    if (!service.allIds.has(depositId)) evidence.push(`deposit.completed for ${depositId}, which the service does not have`);
  }
  return evidence;
}

function rateHeld(record: RunRecord): string[] {
  const times = record.serviceRequests.filter((line) => !line.path.startsWith('/sandbox/')).map((line) => line.receivedAt).sort((a, b) => a - b);
  let most = 0;
  let busiestFrom = 0;
  for (let first = 0, last = 0; last < times.length; last += 1) {
    while (times[last]! - times[first]! >= 1_000) first += 1;
    if (last - first + 1 > most) [most, busiestFrom] = [last - first + 1, times[first]!];
  }
  if (most <= record.callsPerSecond) return [];
  return [`${most} calls in the second from ${new Date(busiestFrom).toISOString()}, with up to ${record.workersBetween(busiestFrom, busiestFrom + 1_000)} worker processes running`];
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
  for await (const execution of record.client.workflow.list({ query: `WorkflowType IN ('rampEvent', 'depositLifecycle') AND StartTime >= '${since}'` })) {
    const id = execution.workflowId.split('/').at(-1)!;
    if (forger.forgedIds.has(id) && !service.allIds.has(id)) forgedStarts.push(execution.workflowId);
  }
  return forgedStarts.length > bound ? [`${forgedStarts.length} workflows started by forgeries, over ${bound} (${record.receiverStarts} receiver starts x ${starts.burst} + ${starts.perSecond}/s x ${seconds.toFixed(0)} s): ${forgedStarts.slice(0, 5).join(', ')}`] : [];
}
