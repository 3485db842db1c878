/**
 * Fault: the webhook token has leaked (issue "Nothing wedges"). From an address of its own, someone
 * posts forged deliveries at FORGED_PER_SECOND for STORM_SECONDS (random event names, known and
 * unknown, made-up and real ids and externalIds, varied and malformed payloads, replays of what it
 * sent before) while JOURNEYS journeys sign up and pay once each way, on the service's own events
 * (the sandbox walks every step a second after the previous one and delivers from 127.0.0.1).
 *
 * Expected, with the receiver's production budget (webhooks/receiver-budget.ts) and a worker process
 * as operators run it (RAMP_MAX_CALLS_PER_SECOND = CALLS_PER_SECOND, WORKER_MEMORY_MB = MEMORY_MB):
 * no delivery of the service's refused or failed (the forger spends its own address's budget); every
 * journey ACTIVE with both deposits COMPLETED; no second in the service's request log with more
 * than CALLS_PER_SECOND calls, and no 429 from it; the workflows the receiver started during the
 * storm under its start bound (forged and genuine together); once everything has run out, nothing
 * parked (no EVENT_UNROUTED event, no journey or deposit NEEDS_ATTENTION); and the worker's resident
 * memory inside its budget all along. Each figure is printed on one line beside its target.
 *
 * LEAKED_TOKEN_JOURNEYS sets the journey count (50 by default).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RECEIVER_BUDGET } from '../../webhooks/receiver-budget';
import { depositWorkflowId, type JourneyState } from '../../workflows/common/messages';
import { RampStage } from '../../observability/search-attributes';
import { customer, deposit, depositAddress, payment, trade, virtualAccount } from '../ramp/support/records';
import { registerTestExits } from '../support/test-journeys';
import { ONE_SECOND_AUTOPILOT } from './support/autopilot';
import { type FaultStack, startFaultStack } from './support/fault-stack';
import { describeJourneys, type JourneyBatch, startJourneys } from './support/journeys';
import { OFFRAMP_AMOUNT, ONRAMP_AMOUNT, USD_RAMPS } from './support/partner';
import { seededRandom } from './support/random';
import { startTemporalOnFile } from './support/temporal-on-file';
import { pause, until } from './support/until';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process';

const JOURNEYS = Number(process.env.LEAKED_TOKEN_JOURNEYS ?? 50);
const FORGED_PER_SECOND = 200;
const STORM_SECONDS = 60;
/** The partner's limit: the worker's RAMP_MAX_CALLS_PER_SECOND, and what the sandbox enforces (429 past it). */
const CALLS_PER_SECOND = 40;
const MEMORY_MB = 512;
/** The forger's own source address (loopback: all of 127/8 is local); the service delivers from 127.0.0.1. */
const FORGER_ADDRESS = '127.0.0.2';
/** Polls a backstop only (events move the journeys), deadlines well beyond the case. */
const JOURNEY_TIMINGS = {
  pollIntervalSeconds: 10,
  pollBackoffCapSeconds: 30,
  kycDeadlineSeconds: 3_600,
  accountsDeadlineSeconds: 3_600,
};
const DEPOSIT_TIMINGS = { pollIntervalSeconds: 10, pollBackoffCapSeconds: 30, stepDeadlineSeconds: 3_600 };
/** An unconfirmed claim is dismissed after 30 s (production: an hour), so the case can wait for every event to end. */
const EVENT_TIMINGS = { targetWaitSeconds: 30 };
const USD_SENDER = { accountNumber: '12345678', accountName: 'Ada Lovelace' };
const CRYPTO_SENDER = { address: '0x0000000000000000000000000000000000000001', network: 'ETH' };

interface RequestLine {
  path: string;
  statusCode: number;
  receivedAt: number;
}

/** A receiver line that was not a 200: who was refused, by which rate, about what. */
interface ReceiverLine {
  status: number;
  outcome: string;
  event?: string;
  payloadId?: string;
  budget?: string;
  source?: string;
}

/** The service's delivery attempts that failed: what it will retry 10 minutes later at the earliest. */
interface FailedDeliveryLine {
  event: string;
  httpStatus: number | null;
}

let stack: FaultStack;
const receiverRefusals: ReceiverLine[] = [];
const failedDeliveries: FailedDeliveryLine[] = [];
/** What the receiver answered each delivery not from the forger's address, by payload id. */
const receiverLinesById = new Map<string, string[]>();
let worker: WorkerProcess;
let batch: JourneyBatch;
const serviceRequests: RequestLine[] = [];
let peakWorkerRssBytes = 0;
let memorySampler: NodeJS.Timeout | undefined;

beforeAll(async () => {
  // The sandbox's request log: one line per request, with when it arrived (no customer data).
  // And its failed delivery attempts, to tell a genuine delivery the receiver refused.
  const logger = pino(
    { level: 'info' },
    {
      write: (text: string) => {
        const line = JSON.parse(text) as { msg: string; outcome?: string };
        if (line.msg === 'request') serviceRequests.push(line as unknown as RequestLine);
        else if (line.msg === 'event delivery attempt' && line.outcome === 'FAILED')
          failedDeliveries.push(line as unknown as FailedDeliveryLine);
      },
    },
  );
  // The receiver's lines for everything it did not accept.
  const receiverLogger = pino(
    { level: 'info' },
    {
      write: (text: string) => {
        const line = JSON.parse(text) as ReceiverLine & { routed?: string };
        if (line.status >= 400) receiverRefusals.push(line);
        if (line.payloadId && line.source?.endsWith(FORGER_ADDRESS) !== true) {
          const heard = receiverLinesById.get(line.payloadId) ?? [];
          heard.push(`${line.event ?? '?'} ${line.status} ${line.routed ?? line.budget ?? line.outcome}`);
          receiverLinesById.set(line.payloadId, heard);
        }
      },
    },
  );
  stack = await startFaultStack(
    {
      autopilot: ONE_SECOND_AUTOPILOT,
      deliveryTickSeconds: 1,
      rateLimit: { callsPerSecond: CALLS_PER_SECOND },
      logger,
    },
    startTemporalOnFile,
    DEPOSIT_TIMINGS,
    EVENT_TIMINGS,
    receiverLogger,
  );
  worker = startWorkerProcess({
    // Enough to show the warnings of a case that did not finish (workerWarnings).
    keepOutputChars: 5_000_000,
    temporalAddress: stack.temporal.address,
    taskQueue: stack.taskQueue,
    rampBaseUrl: stack.service.sandbox.url,
    env: {
      RAMP_MAX_CALLS_PER_SECOND: String(CALLS_PER_SECOND),
      WORKER_MEMORY_MB: String(MEMORY_MB),
      DEPOSIT_POLL_INTERVAL_SECONDS: String(DEPOSIT_TIMINGS.pollIntervalSeconds),
      DEPOSIT_POLL_BACKOFF_CAP_SECONDS: String(DEPOSIT_TIMINGS.pollBackoffCapSeconds),
      DEPOSIT_STEP_DEADLINE_SECONDS: String(DEPOSIT_TIMINGS.stepDeadlineSeconds),
    },
  });
  await worker.started;
  memorySampler = setInterval(
    () => (peakWorkerRssBytes = Math.max(peakWorkerRssBytes, workerRssBytes(worker.pid))),
    500,
  );
}, 120_000);
afterAll(async () => {
  if (memorySampler) clearInterval(memorySampler);
  await worker?.stop();
  await stack?.close();
});

/** Resident memory of the worker: the process bin/rampflow.cjs relaunched with the heap limit, else the launcher itself. */
function workerRssBytes(launcher: number | undefined): number {
  if (launcher === undefined) return 0;
  try {
    const children = readFileSync(`/proc/${launcher}/task/${launcher}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    const pid = children[0] ?? String(launcher);
    const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return Number(kib ?? 0) * 1024;
  } catch {
    return 0; // the process is between a relaunch and its start, or gone
  }
}

/** The most calls that arrived within any one second (sliding over arrival times). */
function busiestSecond(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; last < sorted.length; last++) {
    while (sorted[last]! - sorted[first]! >= 1_000) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

/** The forger's choices, repeatable with FAULT_SEED. */
const random = seededRandom();
const chance = (p: number): boolean => random.next() < p;
const randomIn = <T>(list: readonly T[]): T => list[Math.floor(random.next() * list.length)]!;

/** One quiet line per figure, beside its target. */
function figure(name: string, value: number | string, target: string): void {
  process.stdout.write(`leaked-token: ${name}: ${value} (target ${target})\n`);
}

/** Every payload id the forger sent (made up or copied), to tell the workflows it started. */
const forgedIds = new Set<string>();

/** What the genuine side knows, which the forger copies from: every real id so far. */
const real = {
  externalIds: [] as string[],
  customerIds: new Set<string>(),
  accountIds: new Set<string>(),
  depositIds: new Set<string>(),
};

/**
 * The partner's customers: registers each one's exit accounts once the service has the customer, and
 * pays in once each way once its accounts show usable, all through the sandbox's own tools (not the
 * partner API, so the service's request log holds rampflow's calls only). Reads the journeys' state
 * from Temporal. Resolves when every journey is ACTIVE with both deposits COMPLETED.
 */
async function playThePartner(timeoutMs: number): Promise<void> {
  const { control } = stack.service;
  const exits = new Set<string>();
  const paid = new Map<string, { onramp?: string; offramp?: string }>();
  const done = (state: JourneyState) => state.stage === 'ACTIVE' && state.deposits.byStage.COMPLETED === 2;
  await until(
    'every journey ACTIVE with both deposits COMPLETED',
    async () => {
      let finished = 0;
      for (const externalId of batch.externalIds) {
        const state = await batch.rampflow.getJourney(externalId).catch(() => undefined);
        if (!state) continue;
        if (done(state)) finished += 1;
        const customerId = state.customer.id;
        if (!customerId) continue;
        real.customerIds.add(customerId);
        if (!exits.has(customerId)) {
          await registerTestExits(control, customerId);
          exits.add(customerId);
        }
        const account = state.onramp?.virtualAccount;
        const address = state.offramp?.depositAddress;
        for (const id of [account?.id, address?.id]) if (id) real.accountIds.add(id);
        const mine = paid.get(externalId) ?? {};
        paid.set(externalId, mine);
        if (!mine.onramp && account?.id && account.status === 'VERIFIED') {
          mine.onramp = (
            await control.simulateFiatDeposit({
              virtualAccountId: account.id,
              amount: ONRAMP_AMOUNT,
              currency: 'USD',
              sender: USD_SENDER,
            })
          ).id;
          real.depositIds.add(mine.onramp);
        }
        if (!mine.offramp && address?.id && address.status === 'APPROVED') {
          mine.offramp = (
            await control.simulateCryptoDeposit({
              depositAddressId: address.id,
              amount: OFFRAMP_AMOUNT,
              currency: 'USDT',
              sender: CRYPTO_SENDER,
            })
          ).id;
          real.depositIds.add(mine.offramp);
        }
      }
      return finished === batch.externalIds.length ? true : undefined;
    },
    {
      timeoutMs,
      intervalMs: 1_000,
      describe: async () =>
        `${await describeJourneys(stack.client, batch)}\n${await describeUnfinishedDeposits()}\n${workerWarnings()}`,
    },
  );
}

/** The worker's last warnings and errors (its log holds no customer data), for a case that did not finish. */
function workerWarnings(): string {
  const lines = worker
    .output()
    .split('\n')
    .filter((line) => /"level":(40|50|60)/.test(line));
  const last = lines.slice(-30).map((line) => line.slice(0, 600));
  return `the worker's last warnings and errors (${lines.length} in its kept output):\n${last.join('\n')}`;
}

/** Each genuine deposit without a finished workflow: its workflow's status and what the receiver answered its deliveries. */
async function describeUnfinishedDeposits(): Promise<string> {
  const lines: string[] = [];
  for (const depositId of real.depositIds) {
    const status = await stack.client.workflow
      .getHandle(depositWorkflowId(depositId))
      .describe()
      .then(
        (description) => `${description.status.name} ${description.typedSearchAttributes.get(RampStage) ?? ''}`,
        () => 'no workflow',
      );
    if (status.startsWith('COMPLETED COMPLETED')) continue;
    lines.push(
      `deposit ${depositId}: ${status}; receiver: ${(receiverLinesById.get(depositId) ?? []).join('; ') || 'nothing'}`,
    );
  }
  return lines.join('\n');
}

const EVENT_NAMES = [
  'CUSTOMER_APPROVED',
  'CUSTOMER_REJECTED',
  'CUSTOMER_DELETED',
  'VIRTUAL_ACCOUNT_APPROVED',
  'VIRTUAL_ACCOUNT_REJECTED',
  'DEPOSIT_ADDRESS_APPROVED',
  'DEPOSIT_ADDRESS_REJECTED',
  'DEPOSIT_RECEIVED',
  'DEPOSIT_APPROVED',
  'DEPOSIT_REJECTED',
  'TRADE_CREATED',
  'TRADE_SETTLED',
  'PAYMENT_SETTLED',
  'user.approved',
  'deposit.received',
  // Names rampflow does not know.
  'ACCOUNT_FROZEN',
  'CUSTOMER_UPGRADED',
];
const STATUSES = [
  'APPROVED',
  'CONFIRMED',
  'VERIFIED',
  'REJECTED',
  'DELETED',
  'SETTLED',
  'PENDING',
  'RECEIVED',
  'CREATED',
  'FAILED',
];

/** Made up (a fresh UUID) or taken from the genuine side, half and half. */
function someId(from: Set<string>): string {
  return from.size > 0 && chance(0.5) ? randomIn([...from]) : randomUUID();
}

/** One forged delivery: any name, a real or made-up id, a payload varied from the resource's shape (or not of its shape at all). */
function forgery(): unknown {
  const event = chance(0.1) ? `MADE_UP_${randomUUID().slice(0, 8)}` : randomIn(EVENT_NAMES);
  const base = randomIn([customer, virtualAccount, depositAddress, deposit, trade, payment]) as Record<string, unknown>;
  const everyRealId = new Set([...real.customerIds, ...real.accountIds, ...real.depositIds]);
  const id = someId(everyRealId);
  forgedIds.add(id);
  if (chance(0.1)) return { event, payload: { id } }; // malformed: not its resource's shape
  return {
    event,
    payload: {
      ...base,
      id,
      status: randomIn(STATUSES),
      externalId: real.externalIds.length > 0 && chance(0.7) ? randomIn(real.externalIds) : `forged-${randomUUID()}`,
      customerId: someId(real.customerIds),
      reference: someId(real.depositIds),
      deposit: { id: someId(real.depositIds), currency: 'USD', amount: '1000000.00' },
      realName: `Forger ${Math.floor(random.next() * 1e9)}`,
    },
  };
}

interface StormOutcome {
  sent: number;
  seconds: number;
  byStatus: Map<number, number>;
  startedAt: number;
  endedAt: number;
}

/** Posts FORGED_PER_SECOND forgeries a second for STORM_SECONDS from the forger's address, a tenth of a second's worth at a time; a tenth of them replay an earlier one. */
async function storm(): Promise<StormOutcome> {
  const agent = new Agent({ localAddress: FORGER_ADDRESS, connections: 128 });
  const byStatus = new Map<number, number>();
  const earlier: unknown[] = [];
  const inFlight = new Set<Promise<void>>();
  const startedAt = Date.now();
  let sent = 0;
  const post = async (body: unknown): Promise<void> => {
    try {
      const response = await request(stack.receiver.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        dispatcher: agent,
      });
      await response.body.text();
      byStatus.set(response.statusCode, (byStatus.get(response.statusCode) ?? 0) + 1);
    } catch {
      byStatus.set(0, (byStatus.get(0) ?? 0) + 1);
    }
  };
  const perTick = FORGED_PER_SECOND / 10;
  for (let tick = 0; tick < STORM_SECONDS * 10; tick++) {
    for (let n = 0; n < perTick; n++) {
      const body = earlier.length > 0 && chance(0.1) ? randomIn(earlier) : forgery();
      if (earlier.length < 1_000) earlier.push(body);
      const posted = post(body).finally(() => inFlight.delete(posted));
      inFlight.add(posted);
      sent += 1;
    }
    // Keeps the pace: the next tick leaves a tenth of a second after this one was due.
    const due = startedAt + (tick + 1) * 100;
    await pause(Math.max(0, due - Date.now()));
  }
  await Promise.all(inFlight);
  const endedAt = Date.now();
  await agent.close();
  return { sent, seconds: (endedAt - startedAt) / 1000, byStatus, startedAt, endedAt };
}

/** Which of the receiver's rates refused whom, and which of the service's deliveries failed; the service's must all pass. */
function checkGenuineDeliveriesPassed(): void {
  // The service delivers from 127.0.0.1, the forger from its own address: none of the service's deliveries is refused.
  const refusedGenuine = receiverRefusals.filter(
    (line) => line.source !== undefined && !line.source.endsWith(FORGER_ADDRESS),
  );
  const byBudget = (lines: ReceiverLine[]) => {
    const counts = new Map<string, number>();
    for (const line of lines) {
      const key = `${line.source ?? '?'} ${line.budget ?? line.status}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return [...counts].map(([key, n]) => `${n} ${key}`).join(', ') || 'none';
  };
  figure(
    'receiver refusals by source and budget',
    byBudget(receiverRefusals.filter((line) => line.status === 429)),
    'only the forger address',
  );
  figure(
    'service deliveries that failed',
    `${failedDeliveries.length} (${failedDeliveries.map((line) => `${line.event} ${line.httpStatus ?? 'no answer'}`).join(', ') || 'none'})`,
    '0',
  );
  expect
    .soft(refusedGenuine.map((line) => `${line.event ?? '?'} ${line.payloadId ?? ''} ${line.budget ?? line.status}`))
    .toEqual([]);
  expect.soft(failedDeliveries.length).toBe(0);
  // The case holds only while the forger's requests come from its own address (an agent's `connect.localAddress` is ignored).
  expect(receiverRefusals.filter((line) => line.source?.endsWith(FORGER_ADDRESS)).length).toBeGreaterThan(0);
}

const count = async (query: string): Promise<number> => (await stack.client.workflow.count(query)).count;

describe('a leaked webhook token', () => {
  it(`buys no more than the receiver's budget: ${JOURNEYS} journeys sign up and pay through ${FORGED_PER_SECOND} forged deliveries a second for ${STORM_SECONDS} s`, async () => {
    batch = await startJourneys({
      connection: stack.connection,
      taskQueue: stack.taskQueue,
      prefix: 'leaked',
      count: JOURNEYS,
      ramps: USD_RAMPS,
      timings: JOURNEY_TIMINGS,
    });
    real.externalIds.push(...batch.externalIds);
    const partner = playThePartner(600_000);
    const forged = await storm();
    // Printed before a partner that timed out fails the case: they tell why a journey did not finish.
    const partnerFailed = await partner.then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
    );
    checkGenuineDeliveriesPassed();
    if (partnerFailed) throw partnerFailed;

    // Everything started ends: the forged workflows reading at the lowest priority, the deposits they named dismissed.
    await until(
      'every ramp-event and deposit workflow ended',
      async () =>
        (await count("WorkflowType IN ('rampEvent', 'depositLifecycle') AND ExecutionStatus = 'Running'")) === 0
          ? true
          : undefined,
      {
        timeoutMs: 300_000,
        intervalMs: 2_000,
      },
    );

    // 503: Temporal did not accept a start or signal within the receiver's 10 s (the service would retry); 0: no answer.
    const answers = [...forged.byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, n]) => `${n} answered ${status}`)
      .join(', ');
    figure(
      'forged deliveries sent',
      `${forged.sent} in ${forged.seconds.toFixed(1)} s (${answers})`,
      `${FORGED_PER_SECOND * STORM_SECONDS} in ${STORM_SECONDS} s, each answered 200, 429 or 503`,
    );
    expect.soft(forged.sent).toBe(FORGED_PER_SECOND * STORM_SECONDS);
    expect.soft([...forged.byStatus.keys()].filter((status) => ![200, 429, 503].includes(status))).toEqual([]);

    const finished = await count(`WorkflowType = 'customerJourney' AND RampStage = 'ACTIVE'`);
    figure('genuine journeys ACTIVE with both deposits COMPLETED', finished, String(JOURNEYS));
    expect.soft(finished).toBe(JOURNEYS);

    const calls = serviceRequests.filter((line) => !line.path.startsWith('/sandbox/'));
    const busiest = busiestSecond(calls.map((line) => line.receivedAt));
    const refusedByService = calls.filter((line) => line.statusCode === 429).length;
    figure(
      'service calls in the busiest second',
      `${busiest} (${refusedByService} answered 429)`,
      `at most ${CALLS_PER_SECOND}, none 429`,
    );
    expect.soft(busiest).toBeLessThanOrEqual(CALLS_PER_SECOND);
    expect.soft(refusedByService).toBe(0);

    // Workflows the forgeries started: each ramp-event or deposit workflow named after a payload id the
    // forger sent, but for the genuine deposits (a genuine event about an id the forger also sent counts
    // as forged: an upper bound). Under the forger's address's start rate over the storm and its last answers.
    const { starts } = DEFAULT_RECEIVER_BUDGET;
    const bound = Math.ceil(starts.burst + starts.perSecond * forged.seconds);
    let forgedStarts = 0;
    for await (const execution of stack.client.workflow.list({
      query: `WorkflowType IN ('rampEvent', 'depositLifecycle') AND StartTime >= '${new Date(forged.startedAt).toISOString()}'`,
    })) {
      const id = execution.workflowId.split('/').at(-1)!;
      if (forgedIds.has(id) && !real.depositIds.has(id)) forgedStarts += 1;
    }
    figure(
      'workflows started by forged deliveries',
      forgedStarts,
      `at most ${bound} (${starts.burst} + ${starts.perSecond} a second)`,
    );
    expect.soft(forgedStarts).toBeLessThanOrEqual(bound);

    const parkedEvents = await count(`WorkflowType = 'rampEvent' AND RampStage = 'EVENT_UNROUTED'`);
    const needingAttention = await count(
      `WorkflowType IN ('customerJourney', 'depositLifecycle') AND RampStage = 'NEEDS_ATTENTION'`,
    );
    figure('parked', `${parkedEvents} events, ${needingAttention} journeys or deposits`, '0');
    expect.soft(parkedEvents).toBe(0);
    expect.soft(needingAttention).toBe(0);

    figure(
      'worker resident memory at its peak',
      `${Math.round(peakWorkerRssBytes / 2 ** 20)} MiB`,
      `at most ${MEMORY_MB} MiB (WORKER_MEMORY_MB)`,
    );
    expect(peakWorkerRssBytes).toBeGreaterThan(0);
    expect(peakWorkerRssBytes).toBeLessThanOrEqual(MEMORY_MB * 2 ** 20);
    expect(worker.exited(), worker.output()).toBe(false);
  }, 1_200_000);
});
