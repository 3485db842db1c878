/**
 * One chaos run: starts the stack, plays the seed's schedule (the customers every second, each fault
 * at its time, the forger all along), lets everything settle under a bound, checks the invariants and
 * closes the stack. What it prints goes to `print`; the caller decides what a failure does.
 */
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal as proto } from '@temporalio/proto';
import { RampStage } from '../observability/search-attributes';
import { serviceTaskQueueOf } from '../workflows/common/calls';
import { createRampflowClient, type RampflowClient } from '../client';
import { payloadKeysFromEnv } from '../codec';
import { LOST_ATTEMPT_ERROR, LOST_FOR_GOOD_ATTEMPT_ERROR } from '../sandbox/events/deliveries';
import type { SandboxControl } from '../test/support/sandbox';
import { mulberry32 } from '../test/faults/support/random';
import { Customers, customerAtRest, describeCustomer, type CustomerProgress } from './customers';
import { FORGER_ADDRESS, Forger } from './forger';
import { checkInvariants, missedWhileGone, type GoneWindow, type InvariantRow, type RunRecord } from './invariants';
import { busiestSecond, certainBusiestSecond, earliestArrival } from './loop-stalls';
import { operatorEnablesEndpoint } from './operator';
import { startChaosPartnerApi, type ChaosPartnerApi } from './partner-api';
import {
  drawSchedule,
  EDGE_FAULT_KINDS,
  WEBHOOK_FAULT_KINDS,
  type ChaosOptions,
  type Fault,
  type Schedule,
} from './schedule';
import { keepNondeterministic, nondeterminismIn, readEveryHistory, type ReadHistory } from './histories';
import { keysTheRunMade } from './run-keys';
import { addSlotUse, describeSlotUse, type SlotUse } from './service-slots';
import { fakeTimeLibrary } from './worker-clock';
import type { ClockStep } from './worker-pool';
import {
  CALLS_PER_SECOND,
  ENDPOINT_NAME,
  RECONCILE_EVERY_SECONDS,
  startChaosStack,
  type ChaosStack,
  type ServiceRequest,
} from './stack';

/** How long the run waits, after the play, for everything to come to rest before it checks anyway (the bench row may give more). */
export const SETTLE_BOUND_SECONDS = 300;
const ROUND_MS = 1_000;
const PROGRESS_EVERY_MS = 5_000;
/** A DELAY fault's answer time: longer than a worker's per-call patience is not needed to hurt. */
const SLOW_ANSWER_MS = 3_000;
/** `partner-events enable` touches only the event store's PostgreSQL, which no fault stops: a few tries are plenty. */
const ENABLE_ATTEMPTS = 5;
/** Workflows that have not come to rest while any of these runs (the others are judged by the invariants). */
// A running workflow with no stage yet is unsettled too (`NOT IN` alone skips a null, as SQL does).
const UNSETTLED =
  "WorkflowType IN ('rampEvent', 'depositLifecycle', 'partnerEventDelivery', 'payout') AND ExecutionStatus = 'Running' AND (RampStage IS NULL OR RampStage NOT IN ('NEEDS_ATTENTION', 'EVENT_UNROUTED'))";

export interface ChaosResult {
  schedule: Schedule;
  rows: InvariantRow[];
  /** The evidence the rows were checked on, to check again (the tamper test). */
  record: RunRecord;
  settledWithinBound: boolean;
  /** What the run did, for the bench row (bench/chaos.ts). */
  figures: ChaosFigures;
}

export interface ChaosFigures {
  /** Faults struck, by kind (SERVICE_FAULTS by the service's answer: HTTP_5XX, DELAY, RESET). */
  faultsStruck: Record<string, number>;
  /** Partner events the endpoint accepted (verified, first delivery or not). */
  partnerEvents: number;
  /** Requests the service answered to rampflow (its own tools excluded). */
  serviceRequests: number;
  forgedDeliveries: number;
  /** The service's webhooks: delivery attempts a loss window took, and deliveries whose every attempt failed (lost for good). */
  webhookAttemptsLost: number;
  webhooksLostForGood: number;
  /**
   * Per customer, seconds from the end of the last fault to when the run first saw it at rest for
   * good (its plan done and its journey showing it; 0 when it was at rest before); undefined: never at rest.
   */
  settleAfterLastFaultSeconds: Map<string, number | undefined>;
}

const pause = (ms: number): Promise<void> => new Promise((wake) => setTimeout(wake, ms));

/**
 * How long a fault that needs traffic to strike (webhooks lost or held back, the endpoint gone) is
 * held beyond its drawn length while none came: on a loaded machine a window can pass with no event
 * in it, and then proves nothing.
 */
const HOLD_FOR_TRAFFIC_MS = 60_000;

const signed = (seconds: number): string => `${seconds > 0 ? '+' : ''}${seconds}s`;

/** The service's delivery faults as the play sets them (POST /sandbox/delivery-faults). */
type DeliveryFaultsSetting = Parameters<SandboxControl['deliveryFaults']>[0];

/** Pauses `forSeconds`, then on until `struck` says the fault met its traffic, at most HOLD_FOR_TRAFFIC_MS more. */
async function holdFor(forSeconds: number, struck: () => boolean | Promise<boolean>): Promise<void> {
  await pause(forSeconds * 1000);
  const giveUpAt = Date.now() + HOLD_FOR_TRAFFIC_MS;
  while (!(await struck()) && Date.now() < giveUpAt) await pause(ROUND_MS);
}

/**
 * The refunds the plans asked for, by moment, and how many the service made: a refund is missed when
 * its deposit moved on first (a race the plan lost), so a run that printed none made tests nothing there.
 */
function printRefunds(progress: readonly CustomerProgress[], print: (line: string) => void): void {
  const byMoment = new Map<string, { made: number; missed: number }>();
  for (const customer of progress) {
    if (customer.plan.refund === 'NONE') continue;
    const counts = byMoment.get(customer.plan.refund) ?? { made: 0, missed: 0 };
    if (customer.missedMoves.some((move) => move.startsWith('refund'))) counts.missed += 1;
    else if (customer.refunded) counts.made += 1;
    byMoment.set(customer.plan.refund, counts);
  }
  if (byMoment.size === 0) return;
  const moments = [...byMoment].map(
    ([moment, { made, missed }]) => `${moment} ${made} made${missed > 0 ? `, ${missed} missed` : ''}`,
  );
  print(`refunds the service was to make: ${moments.join('; ')}`);
}

/**
 * `whileUp`: runs on the result before the stack closes (the tamper test checks again against the live service).
 * `settleBoundSeconds`: the settle bound, for a run larger than `npm run chaos` plays (bench/chaos.ts).
 */
export async function playChaos(
  options: ChaosOptions,
  print: (line: string) => void,
  whileUp?: (result: ChaosResult) => Promise<void>,
  settleBoundSeconds = SETTLE_BOUND_SECONDS,
): Promise<ChaosResult> {
  const schedule = drawSchedule(options);
  const stack = await startChaosStack(schedule.seed, {
    cluster: options.cluster ?? false,
    webhooks: schedule.webhooks,
    workerClockOffsetsSeconds: schedule.workerClockOffsetsSeconds,
  });
  if (!fakeTimeLibrary())
    print('worker clocks: all exact (libfaketime is not installed: apt-get install libfaketime to play the offsets)');
  try {
    const result = await play(schedule, stack, print, settleBoundSeconds);
    await whileUp?.(result);
    return result;
  } finally {
    await stack.close();
  }
}

async function play(
  schedule: Schedule,
  stack: ChaosStack,
  print: (line: string) => void,
  settleBoundSeconds: number,
): Promise<ChaosResult> {
  await stack.workers.scaleTo(schedule.initialWorkers);
  const rampflow = await createRampflowClient({
    connection: stack.connection,
    taskQueue: stack.taskQueue,
    payloadKeys: payloadKeysFromEnv(),
  });
  const partnerApi = await startChaosPartnerApi(rampflow, stack.eventsDatabaseUrl);
  try {
    return await playWith(schedule, stack, print, rampflow, partnerApi, settleBoundSeconds);
  } finally {
    await partnerApi.close();
  }
}

async function playWith(
  schedule: Schedule,
  stack: ChaosStack,
  print: (line: string) => void,
  rampflow: RampflowClient,
  partnerApi: ChaosPartnerApi,
  settleBoundSeconds: number,
): Promise<ChaosResult> {
  const { client, service, workers } = stack;
  const customers = new Customers(
    schedule.customerPlans,
    rampflow,
    service.control,
    stack.temporal.address,
    stack.taskQueue,
    partnerApi,
  );
  const forger = new Forger(schedule.seed, stack.receiver.webhookUrl, schedule.forgedPerSecond, () =>
    customers.knownIds(),
  );
  const faults = new FaultPlayer(stack, schedule.seed);
  const startedAt = Date.now();
  const elapsedSeconds = () => (Date.now() - startedAt) / 1000;
  let lastProgress = 0;
  // When each customer was last seen come to rest (undefined while it is not): how long each took to
  // settle after the last fault, at the resolution of a round.
  const restSince = new Map<CustomerProgress, number | undefined>();
  const noteRest = () => {
    for (const customer of customers.progress) {
      if (!customerAtRest(customer)) restSince.set(customer, undefined);
      else if (restSince.get(customer) === undefined) restSince.set(customer, Date.now());
    }
  };
  const progress = (phase: string) => {
    if (Date.now() - lastProgress < PROGRESS_EVERY_MS) return;
    lastProgress = Date.now();
    const p = customers.progress;
    const paid = p.reduce(
      (n, customer) => n + (customer.onrampDepositId ? 1 : 0) + (customer.offrampDepositId ? 1 : 0),
      0,
    );
    print(
      `t+${elapsedSeconds().toFixed(0)}s ${phase}: ${workers.size} workers, ${p.filter((customer) => customer.signups > 0).length}/${p.length} signed up, ` +
        `${p.filter((customer) => customer.lastState?.stage === 'ACTIVE').length} ACTIVE, ${p.filter((customer) => customer.lastState?.stage === 'NEEDS_ATTENTION').length} journeys parked, ${paid} deposits paid, ${faults.done}/${schedule.faults.length} faults, ` +
        `${stack.endpoint.accepted.length} partner events, ${stack.serviceRequests.length} service requests`,
    );
  };

  forger.start();
  // Kept as a value until the play ends: a fault the run could not strike fails the run, not the process.
  const faultsPlayed = faults.play(schedule.faults, startedAt).then(
    () => undefined,
    (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
  );
  while (elapsedSeconds() < schedule.playSeconds) {
    customers.playRound(elapsedSeconds());
    noteRest();
    progress('play');
    await pause(ROUND_MS);
  }
  const faultFailed = await faultsPlayed;
  if (faultFailed) throw faultFailed;
  const forgerReport = await forger.stop();

  const settlingFrom = Date.now();
  const settleDeadline = settlingFrom + settleBoundSeconds * 1000;
  let settledWithinBound = false;
  while (Date.now() < settleDeadline) {
    customers.playRound(elapsedSeconds());
    noteRest();
    progress(
      `settling (${customers.progress.filter(customerAtRest).length}/${customers.progress.length} customers at rest)`,
    );
    if (
      customers.progress.every(customerAtRest) &&
      (await client.workflow.count(UNSETTLED).then(
        ({ count }) => count === 0,
        () => false,
      ))
    ) {
      settledWithinBound = true;
      break;
    }
    await pause(ROUND_MS);
  }
  await customers.idle();
  noteRest();
  print(
    settledWithinBound
      ? `t+${elapsedSeconds().toFixed(0)}s settled`
      : `t+${elapsedSeconds().toFixed(0)}s not settled within ${settleBoundSeconds}s: checking as it is`,
  );

  // The rate window closes here: the checks below read the service themselves.
  const record: RunRecord = {
    client,
    ramp: service.ramp,
    customers: customers.progress,
    endpoint: stack.endpoint,
    serviceRequests: [...stack.serviceRequests],
    stalls: [...stack.loopStalls.stalls],
    eventStore: await partnerApi.readAround(stack.endpoint),
    callsPerSecond: CALLS_PER_SECOND,
    forger: forgerReport,
    receiverStarts: faults.receiverStarts,
    endpointGone: faults.endpointGone,
    crashes: [...workers.crashes],
    memory: { budgetMiB: workers.memoryBudgetMiB, peaks: workers.memoryPeaks },
    workersBetween: (from, to) => workers.mostBetween(from, to),
  };
  const rows = await checkInvariants(record);
  // Every history, read once: where the service queue's slots went, and any workflow task that failed
  // for nondeterminism (a defect of the code or the SDK, which no retry mends), its history kept.
  const slots = new Map<string, SlotUse>();
  const nondeterministic: ReadHistory[] = [];
  await readEveryHistory(
    client,
    (read) => {
      addSlotUse(read.history.events ?? [], slots, serviceTaskQueueOf(stack.taskQueue));
      if (nondeterminismIn(read.history.events ?? []) !== undefined) nondeterministic.push(read);
    },
    (read, listed) => print(`reading every history: ${read} of ${listed} runs`),
  );
  rows.push({
    name: 'no workflow task failed for nondeterminism',
    evidence: keepNondeterministic(nondeterministic, schedule.seed, keysTheRunMade()),
  });
  await printParked(client, print);
  await printReconciliation(client, print);
  print(describeSlotUse(slots.values()));
  printCallsWhileSettling(record.serviceRequests, settlingFrom, print);
  printBusiestSecond(record, print);
  const deliveries = await service.control.deliveries();
  const webhookAttemptsLost = deliveries
    .flatMap((delivery) => delivery.attempts)
    .filter((attempt) => attempt.error === LOST_ATTEMPT_ERROR).length;
  // Lost for good: the fault struck the event, so no attempt of the scheduler's reached the receiver
  // (the policy's fourth and fifth attempts come hours in, even sped up: the run ends before them).
  const webhooksLostForGood = deliveries.filter((delivery) =>
    delivery.attempts.some((attempt) => attempt.error === LOST_FOR_GOOD_ATTEMPT_ERROR),
  ).length;
  print(
    `the service's webhooks: ${deliveries.length} deliveries, ${webhookAttemptsLost} attempts lost on the way, ${webhooksLostForGood} events lost for good (their facts left to rampflow's polls and reconciliation)`,
  );
  // The receiver's answers to the service itself (not the forger): a 429 or 503 leaves that delivery to
  // the service's retry, minutes later, or to the workflows' polls and reconciliation.
  const answers = new Map<string, number>();
  for (const line of stack.receiverLines) {
    if (line.source === FORGER_ADDRESS || typeof line.status !== 'number') continue;
    const key = `${line.status}${line.budget ? ` (${line.budget})` : ''}`;
    answers.set(key, (answers.get(key) ?? 0) + 1);
  }
  print(
    `the receiver answered the service: ${[...answers].map(([answer, count]) => `${answer} x${count}`).join(', ') || 'nothing'}`,
  );
  printRefunds(customers.progress, print);
  if (faults.clockSteps.length > 0)
    print(
      `workers' clocks stepped: ${faults.clockSteps.map((step) => `worker ${step.worker} from ${signed(step.fromSeconds)} to ${signed(step.toSeconds)}`).join(', ')}`,
    );
  const failedPayments = customers.progress.filter((customer) => customer.plan.offrampPayment === 'FAILED');
  if (failedPayments.length > 0) {
    const failed = failedPayments.filter((customer) => customer.offrampPaymentFailed);
    const retried = failed.filter((customer) => customer.depositRetriedAt !== undefined);
    const ended = failed.filter((customer) => customer.offrampDepositEnded);
    print(
      `offramp payouts the service was to fail: ${failedPayments.length}; failed ${failed.length} (the rest paid first); their deposits retried by the operator ${retried.length}, ended (cancelled) ${ended.length}`,
    );
  }
  const parkedJourneys = customers.progress.filter((customer) => customer.plan.journeyPark !== 'NONE');
  if (parkedJourneys.length > 0) {
    const atCreate = parkedJourneys.filter((customer) => customer.plan.journeyParkedAt === 'CUSTOMER_CREATE');
    const atOnramp = parkedJourneys.filter((customer) => customer.plan.journeyParkedAt === 'ONRAMP_SETUP');
    const total = (count: (customer: CustomerProgress) => number) =>
      parkedJourneys.reduce((sum, customer) => sum + count(customer), 0);
    print(
      `journeys parked refused: ${parkedJourneys.length} (at their customer's create ${atCreate.length}, at their onramp's setup ${atOnramp.length}); parks the operator acted on ${total((customer) => customer.journeyParksActedOn.length)}: ` +
        `journey retry ${total((customer) => customer.journeyRetries)}, journey retry --all --error-type Refused ${total((customer) => customer.journeyBulkRetries)}, ` +
        `journey cancel ${parkedJourneys.filter((customer) => customer.journeyCancelled).length} (${parkedJourneys.filter((customer) => customer.journeyCancelled && customer.lastState?.stage === 'CLOSED').length} CLOSED); ` +
        `went on to create their customer ${atCreate.filter((customer) => customer.customerId !== undefined).length}, to set their onramp up ${atOnramp.filter((customer) => customer.lastState?.onramp?.virtualAccount?.id !== undefined).length}`,
    );
  }
  for (const window of faults.endpointGone) {
    const missed = missedWhileGone(record.eventStore.storedBefore, record.endpoint.accepted, [window]);
    const before = missed.filter((event) => Date.parse(event.timestamp) < window.from).length;
    print(
      `the partner endpoint answered 410 for ${((window.enabledAt ?? Date.now()) - window.from) / 1000} s until enabled: it missed ${missed.length} events (${before} recorded before the 410 began), read through GET /events`,
    );
  }
  if (!settledWithinBound)
    rows.unshift({
      name: `everything came to rest within ${settleBoundSeconds} s of the play`,
      evidence: customers.progress.filter((customer) => !customerAtRest(customer)).map(describeCustomer),
    });
  const lastFaultEnded = faults.lastEndedAt ?? startedAt;
  const figures: ChaosFigures = {
    faultsStruck: { ...faults.struck },
    partnerEvents: stack.endpoint.accepted.length,
    serviceRequests: record.serviceRequests.length,
    forgedDeliveries: forgerReport.sent,
    webhookAttemptsLost,
    webhooksLostForGood,
    settleAfterLastFaultSeconds: new Map(
      customers.progress.map((customer) => {
        const since = restSince.get(customer);
        return [customer.plan.externalId, since === undefined ? undefined : Math.max(0, since - lastFaultEnded) / 1000];
      }),
    ),
  };
  return { schedule, rows, record, settledWithinBound, figures };
}

/** Plays each fault at its time, one after another (a fault that takes a while delays the next). */
class FaultPlayer {
  done = 0;
  /** Faults struck by kind; a service fault by the service's answer. */
  readonly struck: Record<string, number> = {};
  /** When the last fault ended (ms): its service answers back to normal, or the part back up. */
  lastEndedAt: number | undefined;
  /** The receiver's starts, the first included: each begins with a full budget. */
  receiverStarts = 1;
  /** When the partner's endpoint answered 410 Gone, and when the operator enabled it again. */
  readonly endpointGone: GoneWindow[] = [];
  private readonly pick: () => number;

  constructor(
    private readonly stack: ChaosStack,
    seed: number,
  ) {
    // Which worker dies is the seed's too, from a stream of its own.
    this.pick = mulberry32(seed ^ 0xdead);
  }

  /** The workers' clocks the play stepped (none where libfaketime is not installed). */
  readonly clockSteps: ClockStep[] = [];
  /** The service's delivery faults in force: two lanes set them, each its own part. */
  private deliveryFaults: DeliveryFaultsSetting = {};
  private deliveryFaultsSent: Promise<unknown> = Promise.resolve();

  /**
   * Four lanes, each one fault at a time: the edges (the service's rate, the partner's endpoint), the
   * service's webhooks lost or late, and its webhooks lost for good, beside the rest, so none delays
   * another (a window of loss held until it struck would otherwise push the next one past the play).
   */
  async play(faults: Fault[], startedAt: number): Promise<void> {
    const lane = (keep: (kind: Fault['kind']) => boolean) =>
      this.playLane(
        faults.filter((fault) => keep(fault.kind)),
        startedAt,
      );
    await Promise.all([
      lane((kind) => !EDGE_FAULT_KINDS.has(kind)),
      lane((kind) => EDGE_FAULT_KINDS.has(kind) && !WEBHOOK_FAULT_KINDS.has(kind)),
      lane((kind) => WEBHOOK_FAULT_KINDS.has(kind) && kind !== 'WEBHOOKS_LOST_FOR_GOOD'),
      lane((kind) => kind === 'WEBHOOKS_LOST_FOR_GOOD'),
    ]);
  }

  /** Sets this lane's part of the service's delivery faults, keeping the other lane's; one change at a time, in order. */
  private setDeliveryFaults(part: DeliveryFaultsSetting): Promise<unknown> {
    this.deliveryFaults = { ...this.deliveryFaults, ...part };
    const whole = { ...this.deliveryFaults };
    // After the last change, whether it went through or not: one failed request must not fail every later one.
    const sent = this.deliveryFaultsSent
      .catch(() => undefined)
      .then(() => this.stack.service.control.deliveryFaults(whole));
    this.deliveryFaultsSent = sent;
    return sent;
  }

  private async playLane(faults: Fault[], startedAt: number): Promise<void> {
    for (const fault of faults) {
      await pause(Math.max(0, startedAt + fault.atSeconds * 1000 - Date.now()));
      await this.strike(fault);
      this.done += 1;
      const kind = fault.kind === 'SERVICE_FAULTS' ? fault.fault : fault.kind;
      this.struck[kind] = (this.struck[kind] ?? 0) + 1;
      this.lastEndedAt = Date.now();
    }
  }

  private async strike(fault: Fault): Promise<void> {
    const { stack } = this;
    switch (fault.kind) {
      case 'KILL_WORKER':
        return stack.workers.killOne(this.pick());
      case 'CLOCK_STEP': {
        const step = stack.workers.stepClock(fault.pick, fault.bySeconds);
        if (step) this.clockSteps.push(step);
        return;
      }
      case 'SCALE_WORKERS':
        return stack.workers.scaleTo(fault.workers);
      case 'RESTART_TEMPORAL':
        return stack.temporal.restartServer();
      case 'RESTART_POSTGRES':
        if (!stack.temporal.restartPostgres)
          throw new Error(`a PostgreSQL restart was drawn, but Temporal runs on a ${stack.temporal.profile}`);
        return stack.temporal.restartPostgres(fault.forSeconds * 1000);
      case 'RESTART_RECEIVER':
        await stack.receiver.stop();
        await pause(2_000);
        await stack.receiver.start();
        this.receiverStarts += 1;
        return;
      case 'SERVICE_FAULTS': {
        const { control } = stack.service;
        await control.injectFault({
          path: '*',
          kind: fault.fault,
          count: 100_000,
          ...(fault.fault === 'DELAY' ? { delayMs: SLOW_ANSWER_MS } : {}),
        });
        await pause(fault.forSeconds * 1000);
        await control.injectFault({ path: '*', kind: fault.fault, count: 0 });
        return;
      }
      case 'SERVICE_LIMIT': {
        const { control } = stack.service;
        await control.limitRate({ callsPerSecond: fault.callsPerSecond, retryAfterSeconds: fault.retryAfterSeconds });
        await pause(fault.forSeconds * 1000);
        await control.limitRate({ callsPerSecond: 0 });
        return;
      }
      case 'ENDPOINT_DOWN':
        await stack.endpoint.down();
        await pause(fault.forSeconds * 1000);
        await stack.endpoint.up();
        return;
      case 'WEBHOOKS_LOST':
      case 'WEBHOOKS_LOST_FOR_GOOD':
      case 'WEBHOOKS_DELAYED': {
        const { control } = stack.service;
        const attemptsWith = (error: string) => async () =>
          (await control.deliveries())
            .flatMap((delivery) => delivery.attempts)
            .filter((attempt) => attempt.error === error).length;
        const deliveries = async () => (await control.deliveries()).length;
        const met =
          fault.kind === 'WEBHOOKS_LOST'
            ? attemptsWith(LOST_ATTEMPT_ERROR)
            : fault.kind === 'WEBHOOKS_LOST_FOR_GOOD'
              ? attemptsWith(LOST_FOR_GOOD_ATTEMPT_ERROR)
              : deliveries;
        const before = await met();
        const setting = (on: boolean): DeliveryFaultsSetting =>
          fault.kind === 'WEBHOOKS_LOST'
            ? { lostShare: on ? fault.share : 0 }
            : fault.kind === 'WEBHOOKS_LOST_FOR_GOOD'
              ? { lostForGoodShare: on ? fault.share : 0 }
              : { delaySeconds: on ? fault.delaySeconds : 0 };
        await this.setDeliveryFaults(setting(true));
        // Until it lost an attempt (of an event lost for good, for that kind), or held back an event that happened meanwhile.
        await holdFor(fault.forSeconds, async () => (await met()) > before);
        await this.setDeliveryFaults(setting(false));
        return;
      }
      case 'ENDPOINT_GONE': {
        const window: GoneWindow = { from: Date.now(), acceptedBefore: stack.endpoint.accepted.length };
        this.endpointGone.push(window);
        const attemptsBefore = stack.endpoint.attempts.length;
        stack.endpoint.answer({ status: 410 });
        // Until it answered a delivery 410, so rampflow disabled it.
        await holdFor(fault.forSeconds, () => stack.endpoint.attempts.length > attemptsBefore);
        stack.endpoint.answer({ status: 204 });
        const env = {
          ...process.env,
          TEMPORAL_ADDRESS: stack.temporal.address,
          TEMPORAL_TASK_QUEUE: stack.taskQueue,
          PARTNER_EVENTS_DATABASE_URL: stack.eventsDatabaseUrl,
        };
        for (let attempt = 1; ; attempt += 1) {
          try {
            await operatorEnablesEndpoint(env, ENDPOINT_NAME);
            break;
          } catch (error) {
            if (attempt >= ENABLE_ATTEMPTS) throw error;
            await pause(1_000);
          }
        }
        window.enabledAt = Date.now();
        window.acceptedBeforeEnabled = stack.endpoint.accepted.length;
        return;
      }
      case 'ENDPOINT_SLOW':
        stack.endpoint.answer({ status: 204, delayMs: fault.answerMs });
        await pause(fault.forSeconds * 1000);
        stack.endpoint.answer({ status: 204 });
        return;
    }
  }
}

/** What the run leaves parked for an operator: the first lines, and how many in all (forged deliveries park too). */
const PARKED_AT_THE_END = "ExecutionStatus = 'Running' AND RampStage IN ('NEEDS_ATTENTION', 'EVENT_UNROUTED')";
const PARKED_LINES = 10;

async function printParked(client: Client, print: (line: string) => void): Promise<void> {
  let count = 0;
  for await (const execution of client.workflow.list({ query: PARKED_AT_THE_END })) {
    count += 1;
    if (count <= PARKED_LINES)
      print(
        `parked at the end: ${execution.type} ${execution.workflowId} ${execution.typedSearchAttributes.get(RampStage) ?? ''}`,
      );
  }
  if (count === 0) print('parked at the end: none');
  if (count > PARKED_LINES) print(`parked at the end: ... and ${count - PARKED_LINES} more`);
}

/** How many of the reconciliation's repairs the run prints, one a line. */
const REPAIR_LINES = 12;

/**
 * What the reconciliation schedule did in the run: its passes, and each repair's key (`RECONCILE/
 * DEPOSIT/<id>/REJECTED`: the record and the status the pass brought its workflow level with), read
 * from the passes' histories. A repair is what the service's deliveries and the workflows' own polls
 * had not brought: where a finding like seed 4's refund would show.
 */
async function printReconciliation(client: Client, print: (line: string) => void): Promise<void> {
  let passes = 0;
  let failed = 0;
  const repairs: string[] = [];
  for await (const execution of client.workflow.list({ query: "WorkflowType = 'reconcileWithService'" })) {
    if (execution.status.name === 'RUNNING') continue;
    passes += 1;
    if (execution.status.name !== 'COMPLETED') failed += 1;
    const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
    repairs.push(...repairKeys(history.events ?? []));
  }
  print(
    `reconciliation every ${RECONCILE_EVERY_SECONDS} s: ${passes} passes ended (${failed} not completed), ${repairs.length} repairs sent`,
  );
  for (const key of repairs.slice(0, REPAIR_LINES)) print(`reconciliation repaired: ${key}`);
  if (repairs.length > REPAIR_LINES) print(`reconciliation repaired: ... and ${repairs.length - REPAIR_LINES} more`);
}

/**
 * The repair keys a reconciliation pass sent: a deposit's, trade's or payment's in its `deliverToDeposit`
 * activity's input, a customer's in its signal's. The run's payloads are plain JSON (no codec key).
 */
export function repairKeys(events: readonly proto.api.history.v1.IHistoryEvent[]): string[] {
  const keyIn = (payloads: proto.api.common.v1.IPayloads | null | undefined): string | undefined => {
    const payload = payloads?.payloads?.[0];
    if (!payload) return undefined;
    try {
      const value = defaultPayloadConverter.fromPayload<{ key?: string; event?: { key?: string } }>(payload);
      return value.event?.key ?? value.key;
    } catch {
      return undefined;
    }
  };
  const keys: (string | undefined)[] = events.map((event) => {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === 'deliverToDeposit') return keyIn(scheduled.input);
    const signalled = event.signalExternalWorkflowExecutionInitiatedEventAttributes;
    if (signalled) return keyIn(signalled.input);
    return undefined;
  });
  return keys.filter((key): key is string => key !== undefined);
}

/**
 * What the workflows still asked the service once the play had ended, by kind of call: what a settled
 * deployment costs (polls, reconciliation passes), and where a workflow that never rests shows first.
 */
function printCallsWhileSettling(
  requests: readonly ServiceRequest[],
  from: number,
  print: (line: string) => void,
): void {
  const settling = requests.filter((request) => request.receivedAt >= from && !request.path.startsWith('/sandbox/'));
  const seconds = Math.max(1, (Date.now() - from) / 1000);
  const byKind = new Map<string, number>();
  // The service's paths carry no ids (those go in the query), so a path is a kind of call.
  for (const request of settling) byKind.set(request.path, (byKind.get(request.path) ?? 0) + 1);
  const top = [...byKind].sort((a, b) => b[1] - a[1]).slice(0, 6);
  print(
    `service calls after the play: ${settling.length} in ${seconds.toFixed(0)} s (${(settling.length / seconds).toFixed(1)} a second)${top.length > 0 ? `: ${top.map(([kind, count]) => `${kind} x${count}`).join(', ')}` : ''}`,
  );
}

/** The service's busiest second, as stamped and as certain, and the stalls between the two (chaos/loop-stalls.ts). */
function printBusiestSecond(record: RunRecord, print: (line: string) => void): void {
  const calls = record.serviceRequests.filter((request) => !request.path.startsWith('/sandbox/'));
  const stamped = busiestSecond(calls.map((request) => request.receivedAt));
  const certain = certainBusiestSecond(
    calls.map((request) => ({
      stampedAt: request.receivedAt,
      earliest: earliestArrival(request.receivedAt, record.stalls),
    })),
  );
  const longest = Math.max(0, ...record.stalls.map((stall) => stall.to - stall.from));
  print(
    `the service's busiest second: ${stamped.calls} calls as stamped, ${certain.calls} certainly within one second; this process stalled ${record.stalls.length} times (longest ${longest} ms)`,
  );
}
