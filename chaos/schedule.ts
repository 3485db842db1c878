/**
 * The chaos run's schedule: what the customers do and which faults strike when, drawn from the seed
 * alone (no clock, no environment), so `npm run chaos -- --seed N` plays the same schedule again.
 */
import { mulberry32 } from '../test/faults/support/random';

export interface ChaosOptions {
  seed: number;
  customers: number;
  minutes: number;
  /**
   * On the cluster profile (a Temporal server on PostgreSQL): half the Temporal restarts become
   * PostgreSQL restarts. The draws are otherwise the same, so a seed's dev-server schedule is unchanged.
   */
  cluster?: boolean;
}

export type SignupPath = 'CLIENT_LIBRARY' | 'TEMPORAL_CLI' | 'PARTNER_API';
export type KycOutcome = 'APPROVED' | 'REJECTED' | 'PENDING';
/**
 * What the service does with the onramp deposit: confirms it; rejects it before confirming; or holds it
 * ACTION_REQUIRED until the customer's document arrives through the client library, then confirms it.
 */
export type OnrampDeposit = 'CONFIRMED' | 'REJECTED' | 'HELD_FOR_ACTION';
/**
 * Which deposit the service refunds, and when (it never completes, unless the refund comes after its payout):
 * - ONRAMP_BEFORE_TRADE: the onramp one, confirmed and refunded in one breath, before rampflow can see its trade;
 * - ONRAMP_DURING_TRADE: the onramp one once its workflow has seen the confirmation and waits for its
 *   trade (CONFIRMED, TRADE_CREATED);
 * - OFFRAMP_DURING_PAYOUT: the offramp one once its workflow shows its payout to the bank, still pending;
 * - OFFRAMP_AFTER_PAYOUT: the offramp one after its payout settled (it completed: reported, then reversed).
 */
export type Refund =
  'NONE' | 'ONRAMP_BEFORE_TRADE' | 'ONRAMP_DURING_TRADE' | 'OFFRAMP_DURING_PAYOUT' | 'OFFRAMP_AFTER_PAYOUT';
/**
 * A payout from the partner's balance to the customer's bank account (workflows/payout/workflow.ts): settled;
 * failed by the service once pending; or refused for a short balance and parked, then an operator
 * (the `rampflow` CLI) tops the balance up and retries it, or cancels it.
 */
export type PayoutPlan = 'NONE' | 'SETTLED' | 'FAILED' | 'REFUSED_THEN_RETRIED' | 'REFUSED_THEN_CANCELLED';

/**
 * What happens at the journey's start: nothing; or the service refuses to create its customer (a
 * refusal of its `/customer/create` alone; or, `journeyParkedAt` ONRAMP_SETUP, of its onramp flow's
 * create once its KYC is approved) until the journey parks `Refused`, and then the operator,
 * the refusal lifted, retries it (`rampflow journey retry <externalId>`, or for RETRIED_IN_BULK
 * `rampflow journey retry --all --error-type Refused`, which resumes every journey parked as refused
 * at that moment, another customer's too) and it goes on to the rest of its plan; or, the refusal
 * kept, cancels it (`rampflow journey cancel`): it ends CLOSED, with no customer at the service.
 */
export type JourneyPark = 'NONE' | 'RETRIED' | 'RETRIED_IN_BULK' | 'CANCELLED';
export type JourneyParkedAt = 'CUSTOMER_CREATE' | 'ONRAMP_SETUP';

export interface CustomerPlan {
  externalId: string;
  /** Seconds into the run. */
  signupAtSeconds: number;
  signupVia: SignupPath;
  /** What the service decides on the customer's KYC; PENDING: never decided within the run. */
  kyc: KycOutcome;
  /** Approved customers only (the rest never pay in): CONFIRMED otherwise. */
  onrampDeposit: OnrampDeposit;
  /** Approved customers only; the onramp refunds only for a CONFIRMED onramp deposit. */
  refund: Refund;
  /** Approved customers only (the payout needs the bank account their journey found). */
  payout: PayoutPlan;
  /**
   * A payout refused then retried: the operator resumes it with the CLI's bulk command (`rampflow
   * payout retry --all --error-type Refused`), so it resumes every payout parked as refused at that
   * tick, another customer's too, rather than `payout retry <reference>`.
   */
  retriedInBulk: boolean;
  /**
   * What the service does with the offramp deposit's payout to the customer's bank: pays it, or fails
   * it while it is pending (the deposit then parks PaymentFailed; the operator retries it once, which
   * parks it again, then cancels it: singly, or with `rampflow deposit cancel --all --error-type
   * PaymentFailed` when `depositCancelledInBulk`). Approved customers only, and not with a refund after
   * the payout (a payout that failed never completes, so there is nothing to refund after it).
   */
  offrampPayment: OfframpPayment;
  depositCancelledInBulk: boolean;
  /** Never CANCELLED for the first customer (the run always follows its money) nor the one that returns. */
  journeyPark: JourneyPark;
  /**
   * Where a parked journey parks: at its customer's create, or, for an approved customer whose journey
   * the operator retries, later, at its onramp flow's create (`SETTING_UP_RAMPS`), with a customer
   * at the service and KYC done.
   */
  journeyParkedAt: JourneyParkedAt;
  /**
   * Approved customers only: once both deposits ended, the customer is closed, its journey removed as
   * retention would (`temporal workflow delete`), and it signs up again under the same externalId.
   */
  closesAndReturns: boolean;
}

export type OfframpPayment = 'PAID' | 'FAILED';

export type ServiceFaultKind = 'HTTP_5XX' | 'DELAY' | 'RESET';

export type Fault =
  | { atSeconds: number; kind: 'KILL_WORKER' }
  /** One running worker's wall clock stepped by `bySeconds` (`pick` in [0, 1) chooses which), as NTP steps a host's. */
  | { atSeconds: number; kind: 'CLOCK_STEP'; bySeconds: number; pick: number }
  | { atSeconds: number; kind: 'SCALE_WORKERS'; workers: number }
  | { atSeconds: number; kind: 'RESTART_TEMPORAL' }
  | { atSeconds: number; kind: 'RESTART_POSTGRES'; forSeconds: number }
  | { atSeconds: number; kind: 'RESTART_RECEIVER' }
  | { atSeconds: number; kind: 'SERVICE_FAULTS'; fault: ServiceFaultKind; forSeconds: number }
  // The edges (drawn from a stream of their own, so the faults above stay what each seed drew before):
  /** The service allows fewer calls than RAMP_MAX_CALLS_PER_SECOND: 429 with Retry-After above it. */
  | { atSeconds: number; kind: 'SERVICE_LIMIT'; callsPerSecond: number; retryAfterSeconds: number; forSeconds: number }
  /** The partner's endpoint refuses connections, then listens again on the same port. */
  | { atSeconds: number; kind: 'ENDPOINT_DOWN'; forSeconds: number }
  /** The partner's endpoint answers each delivery late. */
  | { atSeconds: number; kind: 'ENDPOINT_SLOW'; answerMs: number; forSeconds: number }
  /**
   * The partner's endpoint answers 410 Gone (rampflow disables it), then accepts again, and the
   * operator enables it (`rampflow partner-events enable`): what it missed meanwhile the partner reads
   * through GET /events (docs/integrating/partner-events.md).
   */
  | { atSeconds: number; kind: 'ENDPOINT_GONE'; forSeconds: number }
  /** A share of the service's webhook delivery attempts lost on the way (each retried on its sped-up policy). */
  | { atSeconds: number; kind: 'WEBHOOKS_LOST'; share: number; forSeconds: number }
  /**
   * A share of the events that happen in the window lost for good: every attempt the service's
   * scheduler makes of them is lost, so only rampflow's own reads of the service show those facts.
   */
  | { atSeconds: number; kind: 'WEBHOOKS_LOST_FOR_GOOD'; share: number; forSeconds: number }
  /** The service's webhooks for events that happen meanwhile held back, landing ticks late. */
  | { atSeconds: number; kind: 'WEBHOOKS_DELAYED'; delaySeconds: number; forSeconds: number };

/** The service's webhook delivery faults: played in a lane of their own (they meet neither the rate nor the endpoint). */
export const WEBHOOK_FAULT_KINDS: ReadonlySet<Fault['kind']> = new Set([
  'WEBHOOKS_LOST',
  'WEBHOOKS_LOST_FOR_GOOD',
  'WEBHOOKS_DELAYED',
]);

/** The edge fault kinds: the service's rate, the partner's endpoint, and the service's webhooks. */
export const EDGE_FAULT_KINDS: ReadonlySet<Fault['kind']> = new Set([
  'SERVICE_LIMIT',
  'ENDPOINT_DOWN',
  'ENDPOINT_SLOW',
  'ENDPOINT_GONE',
  ...WEBHOOK_FAULT_KINDS,
]);

/** How the service delivers its webhooks for the whole run (the sandbox's switches). */
export interface WebhookDelivery {
  /** Every delivered event sent a second time. */
  duplicate: boolean;
  /** The deliveries due in one scheduler run sent newest first. */
  outOfOrder: boolean;
}

export interface Schedule extends ChaosOptions {
  /** How long the workload and the faults play; settling comes after. */
  playSeconds: number;
  initialWorkers: number;
  customerPlans: CustomerPlan[];
  /** In time order. */
  faults: Fault[];
  /** Forged deliveries with the leaked token, sent all through the play time. */
  forgedPerSecond: number;
  webhooks: WebhookDelivery;
  /**
   * How far off each worker's wall clock runs, in seconds, by the order workers start (the n-th start
   * takes entry n mod length): a fleet whose hosts disagree by a few seconds (chaos/worker-clock.ts).
   */
  workerClockOffsetsSeconds: number[];
}

export const MAX_WORKERS = 3;
/** The share of refused-then-retried payouts the operator resumes with the bulk command. */
const BULK_RETRY_SHARE = 0.5;
/** The share of approved customers (without a refund after the payout) whose offramp payout the service fails. */
const FAILED_OFFRAMP_PAYMENT_SHARE = 0.3;
/** The share of refunds that land while rampflow waits for the deposit's trade or payout, not before or after it. */
const REFUND_DURING_SHARE = 0.5;
/** The share of customers whose journey parks at its start (its customer's create refused). */
const PARKED_JOURNEY_SHARE = 0.15;
/** Of those, the shares the operator retries singly and in bulk; the rest it cancels. */
const JOURNEY_RETRIED_SHARE = 0.45;
const JOURNEY_RETRIED_IN_BULK_SHARE = 0.35;
/** Of the retried journeys of approved customers, the share that parks later, at its onramp flow's create. */
const PARKED_AT_ONRAMP_SETUP_SHARE = 0.5;
/** Faults a minute of play, on average. */
const FAULTS_PER_MINUTE = 4;
const FORGED_PER_SECOND = 20;

export function drawSchedule(options: ChaosOptions): Schedule {
  if (!Number.isInteger(options.seed) || options.seed < 0) throw new Error('--seed must be a whole number, 0 or more');
  if (!Number.isInteger(options.customers) || options.customers < 1)
    throw new Error('--customers must be a whole number, 1 or more');
  if (!(options.minutes > 0)) throw new Error('--minutes must be more than 0');
  const next = mulberry32(options.seed);
  const chance = (p: number): boolean => next() < p;
  const between = (low: number, high: number): number => low + next() * (high - low);
  const wholeBetween = (low: number, high: number): number => Math.floor(between(low, high + 1));
  const playSeconds = Math.round(options.minutes * 60);
  const seconds = (value: number): number => Math.round(value * 10) / 10;

  // What each customer does with its money comes from a stream of its own, so the faults a seed draws
  // stay what they were before the workload widened.
  const nextMove = mulberry32(options.seed ^ 0x0ca5);
  const pickMove = <T>(weighted: readonly (readonly [T, number])[]): T => {
    let draw = nextMove() * weighted.reduce((total, [, weight]) => total + weight, 0);
    for (const [value, weight] of weighted) if ((draw -= weight) < 0) return value;
    return weighted.at(-1)![0];
  };
  const customerPlans: CustomerPlan[] = Array.from({ length: options.customers }, (_, index) => {
    const draw = next();
    // The first customer is always approved, so every run moves money.
    const kyc: KycOutcome = index === 0 || draw < 0.7 ? 'APPROVED' : draw < 0.85 ? 'REJECTED' : 'PENDING';
    const signupAtSeconds = seconds(between(0, playSeconds * 0.4));
    const viaCli = chance(0.3);
    const refunds = kyc === 'APPROVED' && chance(0.3);
    const viaPartnerApi = nextMove() < 0.35;
    const approved = kyc === 'APPROVED';
    const onrampDeposit = approved
      ? pickMove<OnrampDeposit>([
          ['CONFIRMED', 0.6],
          ['REJECTED', 0.2],
          ['HELD_FOR_ACTION', 0.2],
        ])
      : 'CONFIRMED';
    const refundAfterPayout = nextMove() < 0.5;
    const refund: Refund = !refunds
      ? 'NONE'
      : refundAfterPayout || onrampDeposit !== 'CONFIRMED'
        ? 'OFFRAMP_AFTER_PAYOUT'
        : 'ONRAMP_BEFORE_TRADE';
    const payout = approved
      ? pickMove<PayoutPlan>([
          ['NONE', 0.2],
          ['SETTLED', 0.3],
          ['FAILED', 0.2],
          ['REFUSED_THEN_RETRIED', 0.15],
          ['REFUSED_THEN_CANCELLED', 0.15],
        ])
      : 'NONE';
    return {
      externalId: `chaos-${options.seed}-${index}`,
      // Signups in the first 40 % of the play time, so most journeys meet some fault while they run.
      signupAtSeconds,
      signupVia: viaPartnerApi ? 'PARTNER_API' : viaCli ? 'TEMPORAL_CLI' : 'CLIENT_LIBRARY',
      kyc,
      onrampDeposit,
      refund,
      payout,
      retriedInBulk: false,
      offrampPayment: 'PAID',
      depositCancelledInBulk: false,
      journeyPark: 'NONE',
      journeyParkedAt: 'CUSTOMER_CREATE',
      closesAndReturns: false,
    };
  });
  // One approved customer (not the first, whose money the run always follows) comes back after retention.
  const returning = customerPlans.filter(
    (plan, index) => index > 0 && plan.kyc === 'APPROVED' && plan.refund === 'NONE',
  );
  // Its payout would outlive its journey: it makes none.
  if (returning.length > 0)
    Object.assign(returning[Math.floor(next() * returning.length)]!, { closesAndReturns: true, payout: 'NONE' });
  // Which refused payouts the operator resumes in bulk: from a stream of its own, so the other draws stay.
  const nextBulk = mulberry32(options.seed ^ 0xb01c);
  for (const plan of customerPlans)
    if (plan.payout === 'REFUSED_THEN_RETRIED') plan.retriedInBulk = nextBulk() < BULK_RETRY_SHARE;
  // Which journeys park at their start, and what the operator does: from a stream of its own, two
  // draws a customer whatever they give, so the other draws stay what each seed drew before.
  const nextPark = mulberry32(options.seed ^ 0x9a4c);
  for (const [index, plan] of customerPlans.entries()) {
    const parks = nextPark() < PARKED_JOURNEY_SHARE;
    const move = nextPark();
    if (!parks) continue;
    const cancellable = index > 0 && !plan.closesAndReturns;
    plan.journeyPark =
      move < JOURNEY_RETRIED_SHARE
        ? 'RETRIED'
        : move < JOURNEY_RETRIED_SHARE + JOURNEY_RETRIED_IN_BULK_SHARE || !cancellable
          ? 'RETRIED_IN_BULK'
          : 'CANCELLED';
  }
  // Where the retried journeys of approved customers park: from a stream of its own, one draw a parked
  // customer, so every other draw stays what each seed drew before.
  const nextParkedAt = mulberry32(options.seed ^ 0x0a5e);
  for (const plan of customerPlans) {
    if (plan.journeyPark === 'NONE') continue;
    const later = nextParkedAt() < PARKED_AT_ONRAMP_SETUP_SHARE;
    if (later && plan.kyc === 'APPROVED' && plan.journeyPark !== 'CANCELLED') plan.journeyParkedAt = 'ONRAMP_SETUP';
  }
  // Which offramp deposits' payouts the service fails: from a stream of its own too.
  const nextPayment = mulberry32(options.seed ^ 0xfa11);
  for (const plan of customerPlans) {
    if (plan.kyc !== 'APPROVED' || plan.refund === 'OFFRAMP_AFTER_PAYOUT') continue;
    if (nextPayment() < FAILED_OFFRAMP_PAYMENT_SHARE) {
      plan.offrampPayment = 'FAILED';
      plan.depositCancelledInBulk = nextPayment() < BULK_RETRY_SHARE;
    }
  }

  // Which refunds land while rampflow waits for the trade or the payout: from a stream of its own, one
  // draw a refunding customer, so the other draws stay what each seed drew before.
  const nextRefundTime = mulberry32(options.seed ^ 0x7efd);
  for (const plan of customerPlans) {
    if (plan.refund === 'NONE' || nextRefundTime() >= REFUND_DURING_SHARE) continue;
    plan.refund = plan.refund === 'ONRAMP_BEFORE_TRADE' ? 'ONRAMP_DURING_TRADE' : 'OFFRAMP_DURING_PAYOUT';
  }

  const faults: Fault[] = [];
  const count = Math.max(3, Math.round(options.minutes * FAULTS_PER_MINUTE));
  for (let index = 0; index < count; index += 1) {
    // Between 10 % and 75 % of the play time: the last quarter lets the journeys finish under no fault.
    const atSeconds = seconds(between(playSeconds * 0.1, playSeconds * 0.75));
    const kind = next();
    if (kind < 0.3) faults.push({ atSeconds, kind: 'KILL_WORKER' });
    else if (kind < 0.5) faults.push({ atSeconds, kind: 'SCALE_WORKERS', workers: wholeBetween(1, MAX_WORKERS) });
    else if (options.cluster && kind < 0.55)
      faults.push({ atSeconds, kind: 'RESTART_POSTGRES', forSeconds: wholeBetween(2, 5) });
    else if (kind < 0.6) faults.push({ atSeconds, kind: 'RESTART_TEMPORAL' });
    else if (kind < 0.75) faults.push({ atSeconds, kind: 'RESTART_RECEIVER' });
    else {
      const fault = (['HTTP_5XX', 'DELAY', 'RESET'] as const)[wholeBetween(0, 2)]!;
      faults.push({ atSeconds, kind: 'SERVICE_FAULTS', fault, forSeconds: wholeBetween(5, 15) });
    }
  }
  const initialWorkers = wholeBetween(1, MAX_WORKERS);
  const { edgeFaults, webhooks } = drawEdges(options.seed, playSeconds);
  faults.push(
    ...edgeFaults,
    ...drawWebhookFaults(options.seed, playSeconds),
    ...drawLostForGood(options.seed, playSeconds),
    ...drawClockSteps(options.seed, playSeconds),
    ...drawEndpointGone(options.seed, playSeconds),
  );
  faults.sort((a, b) => a.atSeconds - b.atSeconds);
  return {
    ...options,
    playSeconds,
    initialWorkers,
    customerPlans,
    faults,
    forgedPerSecond: FORGED_PER_SECOND,
    webhooks,
    workerClockOffsetsSeconds: drawClockOffsets(options.seed),
  };
}

/** The most a worker's clock runs off either way: "a few seconds", well inside the service's signature window (60 s). */
const MAX_CLOCK_OFFSET_SECONDS = 8;

/**
 * Each worker start's clock offset: a cycle of four, one of them exact (a host that keeps time), from a
 * stream of its own (the seed's other draws are unchanged by it).
 */
function drawClockOffsets(seed: number): number[] {
  const next = mulberry32(seed ^ 0xc10c);
  const offsets = Array.from({ length: 3 }, () => Math.round((next() * 2 - 1) * MAX_CLOCK_OFFSET_SECONDS));
  offsets.splice(Math.floor(next() * 4), 0, 0);
  return offsets;
}

/** Edge faults a minute of play, on average (at least one a run). */
const EDGE_FAULTS_PER_MINUTE = 1.5;

/**
 * The service's rate and the partner's endpoint, and how the service delivers webhooks: from a stream
 * of their own (the seed's other draws are unchanged by them).
 */
function drawEdges(seed: number, playSeconds: number): { edgeFaults: Fault[]; webhooks: WebhookDelivery } {
  const next = mulberry32(seed ^ 0xed9e);
  const between = (low: number, high: number): number => low + next() * (high - low);
  const wholeBetween = (low: number, high: number): number => Math.floor(between(low, high + 1));
  const webhooks = { duplicate: next() < 0.5, outOfOrder: next() < 0.5 };
  const count = Math.max(1, Math.round((playSeconds / 60) * EDGE_FAULTS_PER_MINUTE));
  const edgeFaults: Fault[] = Array.from({ length: count }, () => {
    const atSeconds = Math.round(between(playSeconds * 0.1, playSeconds * 0.75) * 10) / 10;
    const forSeconds = wholeBetween(5, 15);
    const kind = next();
    if (kind < 0.4)
      return {
        atSeconds,
        kind: 'SERVICE_LIMIT',
        callsPerSecond: wholeBetween(4, 10),
        retryAfterSeconds: wholeBetween(1, 2),
        forSeconds,
      };
    if (kind < 0.7) return { atSeconds, kind: 'ENDPOINT_DOWN', forSeconds };
    return { atSeconds, kind: 'ENDPOINT_SLOW', answerMs: 1_500, forSeconds };
  });
  return { edgeFaults, webhooks };
}

/** Windows of webhook loss or delay a minute of play, on average (at least one a run). */
const WEBHOOK_FAULTS_PER_MINUTE = 1;

/**
 * Windows in which the service's webhooks are lost (a share of attempts, retried on the policy sped
 * up: chaos/stack.ts) or held back beyond a tick: from a stream of their own, so the edges drawn
 * before them stay what each seed drew.
 */
function drawWebhookFaults(seed: number, playSeconds: number): Fault[] {
  const next = mulberry32(seed ^ 0x10a7);
  const between = (low: number, high: number): number => low + next() * (high - low);
  const wholeBetween = (low: number, high: number): number => Math.floor(between(low, high + 1));
  const count = Math.max(1, Math.round((playSeconds / 60) * WEBHOOK_FAULTS_PER_MINUTE));
  return Array.from({ length: count }, () => {
    const atSeconds = Math.round(between(playSeconds * 0.1, playSeconds * 0.75) * 10) / 10;
    const forSeconds = wholeBetween(5, 15);
    if (next() < 0.5)
      return { atSeconds, kind: 'WEBHOOKS_LOST', share: Math.round(between(0.3, 1) * 100) / 100, forSeconds };
    return { atSeconds, kind: 'WEBHOOKS_DELAYED', delaySeconds: wholeBetween(3, 20), forSeconds };
  });
}

/**
 * One window a run in which a share of the events is lost for good, early enough (before 60 % of the
 * play) that the journeys it strikes still have their waits ahead: from a stream of its own.
 */
function drawLostForGood(seed: number, playSeconds: number): Fault[] {
  const next = mulberry32(seed ^ 0x90de);
  const atSeconds = Math.round((playSeconds * 0.1 + next() * playSeconds * 0.5) * 10) / 10;
  const share = Math.round((0.3 + next() * 0.7) * 100) / 100;
  return [{ atSeconds, kind: 'WEBHOOKS_LOST_FOR_GOOD', share, forSeconds: 5 + Math.floor(next() * 11) }];
}

/** The share of runs whose partner endpoint answers 410 Gone for a while. */
const ENDPOINT_GONE_CHANCE = 0.4;

/** At most one 410 window a run (each costs the partner a read of GET /events), from a stream of its own. */
function drawEndpointGone(seed: number, playSeconds: number): Fault[] {
  const next = mulberry32(seed ^ 0x0410);
  if (next() >= ENDPOINT_GONE_CHANCE) return [];
  const atSeconds = Math.round((playSeconds * 0.1 + next() * playSeconds * 0.5) * 10) / 10;
  return [{ atSeconds, kind: 'ENDPOINT_GONE', forSeconds: 5 + Math.floor(next() * 11) }];
}

/** Steps of a worker's clock a minute of play, on average (at least one a run). */
const CLOCK_STEPS_PER_MINUTE = 0.7;

/**
 * Steps of running workers' clocks, 3 to 8 s either way, between 10 % and 75 % of the play: from a
 * stream of their own. With the start offsets (at most 8 s) a worker's clock stays within 16 s of the
 * service's, inside its signature window (60 s).
 */
function drawClockSteps(seed: number, playSeconds: number): Fault[] {
  const next = mulberry32(seed ^ 0x57e9);
  const count = Math.max(1, Math.round((playSeconds / 60) * CLOCK_STEPS_PER_MINUTE));
  return Array.from({ length: count }, () => {
    const atSeconds = Math.round((playSeconds * 0.1 + next() * playSeconds * 0.65) * 10) / 10;
    const size = 3 + Math.floor(next() * 6);
    const bySeconds = next() < 0.5 ? -size : size;
    return { atSeconds, kind: 'CLOCK_STEP', bySeconds, pick: next() };
  });
}

/** The schedule as lines to print (ids and plans only: the run's customers are made up). */
export function describeSchedule(schedule: Schedule): string[] {
  const customers = schedule.customerPlans.map(
    (plan) =>
      `  t+${plan.signupAtSeconds}s signup ${plan.externalId} via ${plan.signupVia}` +
      (plan.journeyPark === 'NONE'
        ? ''
        : plan.journeyParkedAt === 'ONRAMP_SETUP'
          ? `, its onramp setup refused: journey parked then ${plan.journeyPark}`
          : `, its create refused: journey parked then ${plan.journeyPark}`) +
      `, KYC ${plan.kyc}` +
      (plan.kyc === 'APPROVED'
        ? `, onramp deposit ${plan.onrampDeposit}, refund ${plan.refund}, payout ${plan.payout}${plan.retriedInBulk ? ' (in bulk)' : ''}${plan.offrampPayment === 'FAILED' ? `, offramp payment FAILED (deposit cancelled ${plan.depositCancelledInBulk ? 'in bulk' : 'singly'})` : ''}`
        : '') +
      `${plan.closesAndReturns ? ', closed, removed and signed up again' : ''}`,
  );
  const faults = schedule.faults.map((fault) => {
    const detail =
      fault.kind === 'SCALE_WORKERS'
        ? ` to ${fault.workers}`
        : fault.kind === 'CLOCK_STEP'
          ? ` by ${fault.bySeconds > 0 ? '+' : ''}${fault.bySeconds}s`
          : fault.kind === 'SERVICE_FAULTS'
            ? ` ${fault.fault} for ${fault.forSeconds}s`
            : fault.kind === 'SERVICE_LIMIT'
              ? ` ${fault.callsPerSecond} calls a second (Retry-After ${fault.retryAfterSeconds}s) for ${fault.forSeconds}s`
              : fault.kind === 'ENDPOINT_SLOW'
                ? ` ${fault.answerMs} ms an answer for ${fault.forSeconds}s`
                : fault.kind === 'WEBHOOKS_LOST'
                  ? ` ${Math.round(fault.share * 100)} % of attempts for ${fault.forSeconds}s`
                  : fault.kind === 'WEBHOOKS_LOST_FOR_GOOD'
                    ? ` ${Math.round(fault.share * 100)} % of the events that happen in ${fault.forSeconds}s`
                    : fault.kind === 'WEBHOOKS_DELAYED'
                      ? ` ${fault.delaySeconds}s late for ${fault.forSeconds}s`
                      : fault.kind === 'RESTART_POSTGRES' || fault.kind === 'ENDPOINT_DOWN'
                        ? ` down for ${fault.forSeconds}s`
                        : fault.kind === 'ENDPOINT_GONE'
                          ? ` 410 for ${fault.forSeconds}s, then enabled again`
                          : '';
    return `  t+${fault.atSeconds}s ${fault.kind}${detail}`;
  });
  return [
    `seed ${schedule.seed}${schedule.cluster ? ' (cluster)' : ''}: ${schedule.customers} customers, ${schedule.playSeconds}s of play, ${schedule.initialWorkers} workers at first, ${schedule.forgedPerSecond} forged deliveries a second, webhooks ${schedule.webhooks.duplicate ? 'duplicated' : 'once'}${schedule.webhooks.outOfOrder ? ' and out of order' : ''}, worker clocks off by ${schedule.workerClockOffsetsSeconds.map((offset) => `${offset > 0 ? '+' : ''}${offset}s`).join(', ')} in turn`,
    ...customers,
    ...faults,
  ];
}
