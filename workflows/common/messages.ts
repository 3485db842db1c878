/**
 * What the workflows say to each other and to the world: workflow IDs, every signal, query and
 * update, and the deposits' reports to their journey. Each section below keeps its own why.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { z } from 'zod';
import type {
  AttachmentReferenceSchema,
  EndRequestSchema,
  RetryRequestSchema,
  SignupRequestSchema,
  SignupResultSchema,
} from '../schemas';
import type {
  CustomerRecord,
  DepositAddressRecord,
  DepositRecord,
  PaymentRecord,
  RampEvent,
  TradeRecord,
  VirtualAccountRecord,
} from './records';
import { serviceTaskQueueOf } from './calls';
import type { DepositStage, JourneyStage } from './contract';

/**
 * Every message rampflow's workflows take, defined once and shared with the webhook router, the
 * client library and the CLI: a signal per kind of service event (each carrying its event key), a
 * state query per workflow, and the operator updates.
 */
// ---- stages (workflows/common/contract.ts) ------------------------------------------------------------------

export { DEPOSIT_STAGES, JOURNEY_STAGES, type DepositStage, type JourneyStage } from './contract';

// ---- state returned by the queries ----------------------------------------------------------

/** Why a workflow is parked in NEEDS_ATTENTION, and what an operator's `retry` resumes. */
export interface Attention {
  reason: string;
  /** The stage that was parked, which `retry` resumes. */
  stage: string;
  /** The failure type when a service error parked it (InvalidParameters, Unauthorised, ...). */
  errorType?: string;
  since: string;
}

export interface DepositSummary {
  depositId: string;
  kind: 'ONRAMP' | 'OFFRAMP';
  stage: DepositStage;
  amount: string;
  currency: string;
  tradeId?: string;
  paymentId?: string;
  attention?: Attention;
}

export interface JourneyState {
  externalId: string;
  stage: JourneyStage;
  /** One line on what the journey is waiting for (also the Web UI's current details). */
  waitingFor: string;
  attention?: Attention;
  customer: { id?: string; status?: string; kycLink?: string };
  onramp?: {
    currency: string;
    /** The service's id of the customer's crypto address (the exit), once found. */
    cryptoAddressId?: string;
    flowId?: string;
    /** The account details to show the user so they can pay in. */
    virtualAccount?: VirtualAccountRecord;
    whitelisted?: boolean;
  };
  offramp?: {
    currency: string;
    network: string;
    /** The service's id of the customer's bank account (the exit), once found. */
    bankAccountId?: string;
    flowId?: string;
    /** The address to show the user so they can deposit crypto. */
    depositAddress?: DepositAddressRecord;
  };
  deposits: JourneyDeposits;
  /** How the journey ended, once it has. */
  outcome?: string;
}

/**
 * What a journey shows of its deposits. Bounded whatever the customer's history (DESIGN, "Production
 * over a lifetime"): counts and sums, the deposits in progress (up to a cap), the last few that ended.
 * The full list comes from Temporal visibility (`rampflow deposit list --customer <externalId>`).
 */
export interface JourneyDeposits {
  /** How many of the customer's deposits stand at each stage now. */
  byStage: Partial<Record<DepositStage, number>>;
  /**
   * Amounts of completed deposits, per deposit currency (decimal strings), less those the service
   * has since refunded (never below zero).
   */
  completedTotals: Record<string, string>;
  /** Amounts of deposits the service refunded after confirming them (REVERSED), per deposit currency. */
  reversedTotals: Record<string, string>;
  /**
   * The last deposits reversed (at most REVERSALS_REMEMBERED), newest first: a reversal is final, so
   * a repeated or late report of one of these changes nothing.
   */
  reversedDepositIds: string[];
  /** Deposits still in progress, oldest first; at most MAX_OPEN_DEPOSITS_SHOWN. */
  open: DepositSummary[];
  /** Deposits in progress beyond the cap: counted in byStage, not listed. */
  openNotShown: number;
  /** The last deposits that ended (COMPLETED, REJECTED, CANCELLED, REVERSED), newest first. */
  recent: DepositSummary[];
}

export interface DepositState extends DepositSummary {
  customerId: string;
  waitingFor: string;
  status: string;
  outcome?: string;
}

// ---- signals: service events, routed by the ramp-event workflow ------------------------------

export const customerEventSignal = defineSignal<[RampEvent<CustomerRecord>]>('customerEvent');
export const virtualAccountEventSignal = defineSignal<[RampEvent<VirtualAccountRecord>]>('virtualAccountEvent');
export const depositAddressEventSignal = defineSignal<[RampEvent<DepositAddressRecord>]>('depositAddressEvent');
/** To a deposit's workflow (started with it by signal-with-start when it does not exist yet). */
export const depositEventSignal = defineSignal<[RampEvent<DepositRecord>]>('depositEvent');
export const tradeEventSignal = defineSignal<[RampEvent<TradeRecord>]>('tradeEvent');
export const paymentEventSignal = defineSignal<[RampEvent<PaymentRecord>]>('paymentEvent');

/**
 * From a deposit's workflow to its journey whenever its summary changes. `previousStage` lets the
 * journey keep its counts right for deposits it does not list (undefined on the first report).
 */
export interface DepositProgress {
  summary: DepositSummary;
  previousStage?: DepositStage;
}
export const depositProgressSignal = defineSignal<[DepositProgress]>('depositProgress');

// ---- queries ----------------------------------------------------------------------------------

export const journeyStateQuery = defineQuery<JourneyState>('journeyState');
export const depositStateQuery = defineQuery<DepositState>('depositState');

// ---- operator updates -------------------------------------------------------------------------

/** Resume a parked journey, optionally with corrected input (the ramps or the customer's details). */
export type RetryRequest = z.output<typeof RetryRequestSchema>;
export const retryUpdate = defineUpdate<{ resumed: string }, [RetryRequest]>('retry');

/** Why an operator ends something; recorded as the outcome. */
export type EndRequest = z.output<typeof EndRequestSchema>;

/** End a parked journey (CLOSED) or deposit workflow (CANCELLED) that an operator gives up on. */
export const cancelUpdate = defineUpdate<{ cancelled: true }, [EndRequest]>('cancel');

/** The customer relationship ends: the journey closes (its deposits in flight finish on their own). */
export const closeCustomerUpdate = defineUpdate<{ closed: true }, [EndRequest]>('closeCustomer');

/**
 * Moves a running journey to another task queue (a new major version's, docs/deploying/versioning.md,
 * "Major versions"): at its next wait, or at once if it is waiting, parked or ACTIVE, the journey
 * continues as new on `taskQueue`, carrying its whole state. A signal, so the workflow cannot refuse
 * it: a target `handOverRefusal` names a reason for is ignored (and logged), and a journey that is
 * ending just ends.
 */
export interface HandOverRequest {
  taskQueue: string;
}
export const handOverSignal = defineSignal<[HandOverRequest]>('handOver');

/** Temporal allows longer names; a hand-over target is a queue name an operator typed, and its `-service` queue must fit too. */
export const MAX_TASK_QUEUE_NAME_LENGTH = 200;
const TASK_QUEUE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Why a journey on `ownTaskQueue` cannot hand over to `taskQueue`, or undefined when it can. Shared by
 * the workflow (which ignores a refused target) and the client (which refuses it before sending).
 * The reason never repeats the name given, which may be anything.
 */
export function handOverRefusal(taskQueue: unknown, ownTaskQueue: string): string | undefined {
  if (typeof taskQueue !== 'string' || taskQueue.length === 0) return 'no task queue named';
  if (taskQueue.length > MAX_TASK_QUEUE_NAME_LENGTH)
    return `a task queue name of at most ${MAX_TASK_QUEUE_NAME_LENGTH} characters`;
  if (!TASK_QUEUE_NAME.test(taskQueue))
    return 'a task queue name of letters, digits, dots, dashes and underscores, starting with a letter or digit';
  if (taskQueue === ownTaskQueue) return "the journey's own task queue";
  // Only the service-call workers poll it (workflows/common/calls.ts): a journey there would never run.
  if (taskQueue === serviceTaskQueueOf(ownTaskQueue)) return "the journey's service task queue";
  return undefined;
}

/**
 * For a deposit in ACTION_REQUIRED: the document the service asked for, as a claim check. The bytes
 * stay in the attachment store (attachments/); only this reference and their hash enter the history.
 */
export type AttachmentReference = z.output<typeof AttachmentReferenceSchema>;
export const submitAttachmentUpdate = defineUpdate<{ submitted: true }, [AttachmentReference]>('submitAttachment');

// ---- signup ------------------------------------------------------------------------------------

/**
 * Sent with the journey's start (update-with-start) by `POST /journeys` and the client's `signUp`, or
 * to the running journey of the same externalId: answers the stage and, once the service's record has
 * it, the KYC link, waiting at most `waitSeconds` for it (workflows/journey/run.ts, `answerSignup`).
 */
export type SignupRequest = z.output<typeof SignupRequestSchema>;
export type SignupResult = z.output<typeof SignupResultSchema>;
export const signupUpdate = defineUpdate<SignupResult, [SignupRequest]>('signup');

/**
 * Workflow IDs are business keys, so every start and every event is idempotent: a second start of the
 * same journey, deposit or delivered event finds the workflow already there.
 */
export const journeyWorkflowId = (externalId: string): string => `customer/${externalId}`;
export const depositWorkflowId = (depositId: string): string => `deposit/${depositId}`;
/** A payout from the partner's balance is keyed by the partner's own reference. */
export const payoutWorkflowId = (reference: string): string => `payout/${reference}`;
export const eventWorkflowId = (event: string, payloadId: string): string => `event/${event}/${payloadId}`;

const DEPOSIT_PREFIX = depositWorkflowId('');
/** The deposit id a `deposit/<depositId>` workflow ID names. */
export const depositIdOf = (workflowId: string): string => {
  if (!workflowId.startsWith(DEPOSIT_PREFIX)) throw new Error(`not a deposit workflow ID: ${workflowId}`);
  return workflowId.slice(DEPOSIT_PREFIX.length);
};

/**
 * Deposits' progress reports to their journey, offered in batches by update (docs/guarantees/signal-storms.md).
 *
 * A signal lands in the journey's history whether or not the journey keeps up: a burst of a few
 * hundred a second to one journey outruns its workflow tasks, the server fails the task that fell
 * behind (more than 100 events buffered), the worker replays the whole run in one go and dies in
 * Node's async hooks (temporalio/sdk-typescript#939), and a journey under a steady storm can never
 * continue as new (each attempt finds new signals). An update is admitted only when the journey's
 * validator takes it: a report the journey cannot take now is refused without a trace in its history
 * and offered again by its sender. Reports waiting for the same journey go together, up to
 * MAX_REPORTS_PER_OFFER, in one update.
 */

/**
 * One report, with a key its sender repeats when it offers it again (`<depositId>#<run>.<n>`, the n-th
 * report of that run of the deposit's workflow): the journey applies a key once.
 */
export interface DepositReport {
  key: string;
  progress: DepositProgress;
}

export interface DepositReportsAnswer {
  /** Reports the journey took (applied now, or already applied under the same key). */
  taken: number;
}

export const depositReportsUpdate = defineUpdate<DepositReportsAnswer, [DepositReport[]]>('depositReports');

/** The reason a journey refuses reports while it hands over to its next run: the sender offers them again. */
export const HANDING_OVER = 'the journey is continuing as new: offer the reports again';

export const depositReportKey = (depositId: string, run: string, n: number): string => `${depositId}#${run}.${n}`;

// ---- which of a deposit's stages its journey hears of

const DEPOSIT_ENDINGS: readonly DepositStage[] = ['COMPLETED', 'REJECTED', 'CANCELLED', 'REVERSED'];
/** Whether a deposit has ended (REVERSED is the one move an ended deposit may still make). */
export const depositHasEnded = (stage: DepositStage): boolean => DEPOSIT_ENDINGS.includes(stage);

/** Stages an operator looking at the journey must see while they last. */
const NEEDS_SOMEONE: readonly DepositStage[] = ['ACTION_REQUIRED', 'NEEDS_ATTENTION'];

/**
 * Whether a deposit's change of stage is news for its journey. The journey hears when a deposit
 * opens, when it starts or stops needing someone, and when it ends; the steps between (CONFIRMED,
 * TRADE_CREATED, ...) are the deposit's own business, readable from its workflow. Each report is a
 * signal (a billed action and a history event on a journey that lives for years), so a deposit costs
 * its journey two of them on the happy path instead of one per step.
 */
export function isNewsForJourney(
  reported: DepositStage | undefined,
  next: DepositStage,
  attentionChanged: boolean,
): boolean {
  if (reported === undefined || attentionChanged) return true;
  if (reported === next) return false;
  return depositHasEnded(next) || NEEDS_SOMEONE.includes(next) || NEEDS_SOMEONE.includes(reported);
}

// ---- a payout's signal (the payout's own messages are workflows/payout/messages.ts)

/**
 * PAYMENT_SETTLED for this payout's payment, re-read from the service. Parked at its settlement
 * deadline, the payout takes it as a reason to read the payment again itself.
 */
export const payoutPaymentEventSignal = defineSignal<[RampEvent<PaymentRecord>]>('payoutPaymentEvent');
