/**
 * The run's customers, each following its plan: it signs up (through the client library, the
 * Temporal CLI or the partner API, as docs/integrating/ shows), the service decides its KYC, the
 * partner registers its exit accounts, and it pays in once each way as soon as its journey shows the
 * accounts usable. The service confirms, rejects or holds the onramp deposit (the customer then sends
 * its document through the client library), refunds a deposit before or during its trade, or during
 * or after its payout, fails an offramp deposit's payout to the customer's bank (an operator then
 * retries the parked deposit and cancels it), and settles or fails a payout, or refuses it for a short balance (an
 * operator then retries or cancels it: chaos/operator.ts); one customer closes and returns. Some
 * customers' creates the service refuses until their journeys park, and the operator then retries
 * them (singly or in bulk) or cancels them. Everything the service does goes
 * through the sandbox's own tools (not the partner ramp API), so the service's request log holds
 * rampflow's calls only; what the customer knows of its journey and payout it reads from Temporal.
 * Each step is tried again on the next round when it fails (Temporal or a worker may be down): the
 * run records what was done, the reference the invariants hold the service's records to.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { WorkflowNotFoundError } from '@temporalio/client';
import { PayoutClient, type RampflowClient } from '../client';
import { requireTemporalCli } from '../dev/temporal-cli';
import { type DepositState, type JourneyState, journeyWorkflowId } from '../workflows/common/messages';
import { OFFRAMP_AMOUNT, ONRAMP_AMOUNT, USD_RAMPS } from '../test/faults/support/partner';
import type { SandboxControl } from '../test/support/sandbox';
import { registerTestExits } from '../test/support/test-journeys';
import type { PayoutState } from '../workflows/payout/messages';
import {
  operatorCancelsDeposit,
  operatorCancelsFailedPayoutDeposits,
  operatorCancelsJourney,
  operatorCancelsPayout,
  operatorRetriesDeposit,
  operatorRetriesJourney,
  operatorRetriesPayout,
  operatorRetriesRefusedJourneys,
  operatorRetriesRefusedPayouts,
} from './operator';
import type { ChaosPartnerApi } from './partner-api';
import type { CustomerPlan, JourneyParkedAt } from './schedule';
import { JOURNEY_TIMINGS } from './stack';

const USD_SENDER = { accountNumber: '12345678', accountName: 'Chaos Customer' };
const CRYPTO_SENDER = { address: '0x0000000000000000000000000000000000000001', network: 'ETH' };
const run = promisify(execFile);
/** What a customer sends when the service holds its deposit for action. */
const DOCUMENT = {
  fileName: 'source-of-funds.pdf',
  contentType: 'application/pdf',
  content: new TextEncoder().encode('%PDF-1.4 chaos source of funds'),
};
/** A payout the balance covers: the run credits this much first. */
const PAYOUT_AMOUNT = '7';
/** A payout no balance of the run covers, until the operator tops it up. */
const REFUSED_PAYOUT_AMOUNT = '1000000';
/** The payout learns of a failed payment from its poll alone (no event): every 5 s here; no deadline within a run. */
const PAYOUT_TIMINGS = { pollIntervalSeconds: 5, settlementDeadlineSeconds: 86_400 };
const PAYOUT_ENDED = new Set(['SETTLED', 'FAILED', 'CANCELLED']);
/**
 * A call refused until lifted (a customer's create, or its onramp flow's): far more refusals than its
 * journey's attempts before it parks (RAMP_REFUSED_CREATE_PARK_AFTER_SECONDS in chaos/stack.ts), so
 * only the lift ends them.
 */
const REFUSED_UNTIL_LIFTED = 1_000;
/** The call a parked journey's plan has the service refuse: its customer's create, or its onramp flow's. */
const REFUSED_PATH: Record<JourneyParkedAt, string> = {
  CUSTOMER_CREATE: '/customer/create',
  ONRAMP_SETUP: '/autoramp-flow/onramp',
};
/** Deposit stages a journey shows for a deposit that ended. */
const DEPOSIT_ENDED = new Set(['COMPLETED', 'REJECTED', 'REVERSED', 'CANCELLED', 'DISMISSED']);

/** Refunds the customer makes once the deposit's workflow shows a later moment, not at the deposit's arrival. */
const LATER_REFUNDS = new Set<CustomerPlan['refund']>([
  'ONRAMP_DURING_TRADE',
  'OFFRAMP_DURING_PAYOUT',
  'OFFRAMP_AFTER_PAYOUT',
]);

/** The payout's reference (its workflow id's key and the payment's reference at the service). */
export const payoutReferenceOf = (plan: CustomerPlan): string => `${plan.externalId}.payout`;

/** What one customer has done so far. */
export interface CustomerProgress {
  plan: CustomerPlan;
  signups: number;
  customerId?: string;
  exitsRegistered: boolean;
  kycDecided: boolean;
  onrampDepositId?: string;
  offrampDepositId?: string;
  /** The service's move on the onramp deposit (reject, hold, confirm-and-refund) was tried. */
  onrampSteered: boolean;
  /** The service held the onramp deposit ACTION_REQUIRED: the customer owes a document. */
  held: boolean;
  documentSubmitted: boolean;
  /** The planned refund went through; or, for a refund after or during the payout or trade, was tried (a missed one is in missedMoves). */
  refunded: boolean;
  payoutStarted: boolean;
  /** The service failed the payout's payment (the FAILED plan; false when it settled first). */
  paymentFailed: boolean;
  /** The operator's retry or cancel of the parked payout went through (at least once). */
  operatorActed: boolean;
  /** The service failed the offramp deposit's payout (the FAILED offramp plan; false when it was paid first). */
  offrampPaymentFailed: boolean;
  /** The park of the offramp deposit (its `since`) the operator retried: the next park is cancelled. */
  depositRetriedAt?: string;
  /** The offramp deposit's workflow was seen ended (cancelled by the operator, singly or in another's bulk cancel, or paid): nothing more to do. */
  offrampDepositEnded: boolean;
  /** The park (its `since`) the balance was topped up for: once a park, whatever retries it. */
  toppedUpFor?: string;
  /** The payout's last state read. */
  payoutState?: PayoutState;
  /** Moves the service could not make because the record had moved on first (a race the plan lost). */
  missedMoves: string[];
  /**
   * The call its JourneyPark plan refuses is refused at the service until lifted: its create, set before
   * it signs up; or its onramp flow's create, set once its customer exists and before its KYC is decided.
   */
  refusalArmed: boolean;
  /** The parks (their `since`) of its journey the operator acted on. */
  journeyParksActedOn: string[];
  /** What the operator ran on its journey: single retries, bulk retries, and the cancel that went through. */
  journeyRetries: number;
  journeyBulkRetries: number;
  journeyCancelled: boolean;
  /** Closed, its journey removed as retention would; signed up again when signups is 2. */
  closed: boolean;
  removed: boolean;
  /** The last state its journey answered. */
  lastState?: JourneyState;
  /** The last thing that failed for it (tried again next round). */
  lastError?: string;
}

export class Customers {
  readonly progress: CustomerProgress[];
  private readonly payouts: PayoutClient;
  private readonly busy = new Map<CustomerProgress, Promise<unknown>>();

  constructor(
    plans: CustomerPlan[],
    private readonly rampflow: RampflowClient,
    private readonly control: SandboxControl,
    private readonly temporalAddress: string,
    private readonly taskQueue: string,
    private readonly partnerApi: ChaosPartnerApi,
  ) {
    this.payouts = new PayoutClient(rampflow.temporal, rampflow.taskQueue);
    this.progress = plans.map((plan) => ({
      plan,
      signups: 0,
      exitsRegistered: false,
      kycDecided: false,
      onrampSteered: false,
      held: false,
      documentSubmitted: false,
      refunded: false,
      payoutStarted: false,
      paymentFailed: false,
      operatorActed: false,
      offrampPaymentFailed: false,
      offrampDepositEnded: false,
      refusalArmed: false,
      journeyParksActedOn: [],
      journeyRetries: 0,
      journeyBulkRetries: 0,
      journeyCancelled: false,
      missedMoves: [],
      closed: false,
      removed: false,
    }));
  }

  /** Every id the genuine side knows (the forger copies from these). */
  knownIds(): { externalIds: string[]; ids: string[] } {
    const started = this.progress.filter((customer) => customer.signups > 0);
    return {
      externalIds: started.map((customer) => customer.plan.externalId),
      ids: started.flatMap((customer) =>
        [customer.customerId, customer.onrampDepositId, customer.offrampDepositId].filter(
          (id): id is string => id !== undefined,
        ),
      ),
    };
  }

  /**
   * One round: every customer not still busy with its last step takes the next step its plan and its
   * journey allow. It does not wait for them: a query that waits out a killed worker holds up only its
   * own customer.
   */
  playRound(secondsIntoRun: number): void {
    for (const customer of this.progress) {
      if (this.busy.has(customer)) continue;
      const stepping = this.step(customer, secondsIntoRun)
        .then(
          () => (customer.lastError = undefined),
          (error: unknown) =>
            (customer.lastError = error instanceof Error ? error.message.split('\n')[0] : String(error)),
        )
        .finally(() => this.busy.delete(customer));
      this.busy.set(customer, stepping);
    }
  }

  /** Resolves once no customer is in the middle of a step. */
  async idle(): Promise<void> {
    await Promise.all(this.busy.values());
  }

  private async step(customer: CustomerProgress, secondsIntoRun: number): Promise<void> {
    const { plan } = customer;
    if (customer.signups === 0) {
      if (secondsIntoRun < plan.signupAtSeconds) return;
      if (plan.journeyPark !== 'NONE' && plan.journeyParkedAt === 'CUSTOMER_CREATE' && !customer.refusalArmed) {
        await this.control.injectFault({ ...this.refusalOf(plan), count: REFUSED_UNTIL_LIFTED });
        customer.refusalArmed = true;
      }
      await this.signUp(plan);
      customer.signups = 1;
    }
    if (customer.closed && !customer.removed) {
      customer.removed = await this.removeJourney(plan.externalId);
      if (!customer.removed) return;
    }
    if (customer.removed && customer.signups === 1) {
      // Signed up again as a new user would, through the client library.
      await this.signUp({ ...plan, signupVia: 'CLIENT_LIBRARY' });
      customer.signups = 2;
    }
    const state = await this.rampflow.getJourney(plan.externalId);
    customer.lastState = state;
    if ((await this.actOnParkedJourney(customer, state)) || customer.journeyCancelled) return;
    const customerId = state.customer.id;
    if (!customerId) return;
    customer.customerId = customerId;
    if (!customer.exitsRegistered) {
      await registerTestExits(this.control, customerId);
      customer.exitsRegistered = true;
    }
    if (plan.journeyPark !== 'NONE' && plan.journeyParkedAt === 'ONRAMP_SETUP' && !customer.refusalArmed) {
      // Its journey sets its ramps up once KYC is approved (below): the refusal is armed before that.
      await this.control.injectFault({ ...this.refusalOf(plan, customerId), count: REFUSED_UNTIL_LIFTED });
      customer.refusalArmed = true;
    }
    if (!customer.kycDecided) {
      if (plan.kyc === 'APPROVED') await this.control.approveCustomer(customerId);
      if (plan.kyc === 'REJECTED') await this.control.rejectCustomer(customerId);
      customer.kycDecided = true;
    }
    if (plan.kyc !== 'APPROVED' || customer.signups > 1) return;
    const account = state.onramp?.virtualAccount;
    const address = state.offramp?.depositAddress;
    if (!customer.onrampDepositId && account?.id && account.status === 'VERIFIED') {
      customer.onrampDepositId = (
        await this.control.simulateFiatDeposit({
          virtualAccountId: account.id,
          amount: ONRAMP_AMOUNT,
          currency: 'USD',
          sender: USD_SENDER,
        })
      ).id;
    }
    if (customer.onrampDepositId && !customer.onrampSteered) await this.steerOnramp(customer, customer.onrampDepositId);
    if (!customer.offrampDepositId && address?.id && address.status === 'APPROVED') {
      customer.offrampDepositId = (
        await this.control.simulateCryptoDeposit({
          depositAddressId: address.id,
          amount: OFFRAMP_AMOUNT,
          currency: 'USDT',
          sender: CRYPTO_SENDER,
        })
      ).id;
    }
    const offrampCompleted = state.deposits.recent.some(
      (deposit) => deposit.depositId === customer.offrampDepositId && deposit.stage === 'COMPLETED',
    );
    if (plan.refund === 'OFFRAMP_AFTER_PAYOUT' && !customer.refunded && offrampCompleted) {
      await this.serviceMoves(customer, 'refund the offramp deposit after its payout', () =>
        this.control.refundDeposit(customer.offrampDepositId!),
      );
      customer.refunded = true;
    }
    if (plan.refund === 'ONRAMP_DURING_TRADE' && customer.onrampDepositId)
      await this.refundWhileWaiting(
        customer,
        customer.onrampDepositId,
        'refund the onramp deposit during its trade',
        // Its workflow has seen the confirmation and waits for the trade the service created with it.
        (deposit) => deposit.stage === 'CONFIRMED' || deposit.stage === 'TRADE_CREATED',
      );
    if (plan.refund === 'OFFRAMP_DURING_PAYOUT' && customer.offrampDepositId)
      await this.refundWhileWaiting(
        customer,
        customer.offrampDepositId,
        'refund the offramp deposit during its payout',
        (deposit) => deposit.paymentId !== undefined,
      );
    if (plan.offrampPayment === 'FAILED' && customer.offrampDepositId)
      await this.failOfframpPayment(customer, customer.offrampDepositId);
    if (plan.payout !== 'NONE' && state.offramp?.bankAccountId)
      await this.payout(customer, state.offramp.bankAccountId);
    if (plan.closesAndReturns && !customer.closed && bothDepositsEnded(customer, state)) {
      await this.rampflow.closeCustomer(plan.externalId, 'chaos: the customer left');
      customer.closed = true;
    }
    if (customer.held && !customer.documentSubmitted) {
      // Refused until the deposit's workflow has read the hold: tried again next round (last, so the
      // customer's other steps do not wait for it).
      await this.rampflow.submitAttachment(customer.onrampDepositId!, DOCUMENT);
      customer.documentSubmitted = true;
    }
  }

  /**
   * The service's move on the onramp deposit, right after it arrived: the autopilot confirms it a
   * second later unless the move came first. Confirm-and-refund goes in one breath, so the refund
   * lands before the trade settles (the autopilot leaves a refunded deposit's trade unsettled).
   */
  private async steerOnramp(customer: CustomerProgress, depositId: string): Promise<void> {
    const { plan } = customer;
    if (plan.onrampDeposit === 'REJECTED')
      await this.serviceMoves(customer, 'reject the onramp deposit', () => this.control.rejectDeposit(depositId));
    if (plan.onrampDeposit === 'HELD_FOR_ACTION')
      customer.held = await this.serviceMoves(customer, 'hold the onramp deposit for action', () =>
        this.control.requireDepositAction(depositId),
      );
    if (plan.refund === 'ONRAMP_BEFORE_TRADE') {
      // Already confirmed by the autopilot is as good: the refund is what matters.
      await this.control.confirmDeposit(depositId).catch(() => undefined);
      customer.refunded = await this.serviceMoves(customer, 'refund the onramp deposit before its trade', () =>
        this.control.refundDeposit(depositId),
      );
    }
    customer.onrampSteered = true;
  }

  /**
   * A refund that lands while the deposit's workflow waits for the service: for its trade to settle
   * (the chaos stack's trades stay PENDING a few seconds, so the customer can find one) or for its
   * payout to the bank (PENDING too). Tried once, when the workflow shows that wait; a deposit that
   * ended first, or a refund the service refused, is a missed move, and the invariants judge what the
   * service did.
   */
  private async refundWhileWaiting(
    customer: CustomerProgress,
    depositId: string,
    move: string,
    waiting: (deposit: DepositState) => boolean,
  ): Promise<void> {
    if (customer.refunded) return;
    const deposit = await this.rampflow.getDeposit(depositId);
    if (DEPOSIT_ENDED.has(deposit.stage)) {
      customer.missedMoves.push(`${move}: its workflow ended ${deposit.stage} first`);
      customer.refunded = true;
      return;
    }
    if (!waiting(deposit)) return;
    await this.serviceMoves(customer, move, () => this.control.refundDeposit(depositId));
    customer.refunded = true;
  }

  /**
   * The offramp deposit's payout, failed by the service while pending (the customer's bank refused it),
   * then the operator's two moves on the deposit that parks PaymentFailed: a retry (it reads the payment
   * again, still failed, and parks again), then a cancel, singly or in bulk. What the customer knows of
   * the deposit (its payment, its park) it reads from the deposit's workflow.
   */
  private async failOfframpPayment(customer: CustomerProgress, depositId: string): Promise<void> {
    if (customer.offrampDepositEnded || customer.missedMoves.some((move) => move.startsWith('fail the offramp')))
      return;
    const deposit = await this.rampflow.getDeposit(depositId);
    if (DEPOSIT_ENDED.has(deposit.stage)) {
      customer.offrampDepositEnded = true;
      return;
    }
    if (!customer.offrampPaymentFailed) {
      if (!deposit.paymentId) return;
      customer.offrampPaymentFailed = await this.serviceMoves(customer, "fail the offramp deposit's payout", () =>
        this.control.failPayment(deposit.paymentId!, "chaos: the customer's bank refused the payout"),
      );
      return;
    }
    if (deposit.stage !== 'NEEDS_ATTENTION' || deposit.attention?.errorType !== 'PaymentFailed') return;
    if (customer.depositRetriedAt === undefined) {
      await operatorRetriesDeposit(this.operatorEnv(), depositId);
      customer.depositRetriedAt = deposit.attention.since;
      return;
    }
    // The park after the retry: the payment is still failed.
    if (deposit.attention.since === customer.depositRetriedAt) return;
    if (customer.plan.depositCancelledInBulk) await operatorCancelsFailedPayoutDeposits(this.operatorEnv());
    else await operatorCancelsDeposit(this.operatorEnv(), depositId);
  }

  /**
   * The operator on a journey parked as refused (its customer's create, or its onramp flow's): acted on
   * at every park seen, since another customer's bulk retry may resume it before its own move and,
   * while it is still refused, it parks again. For a retry the refusal is lifted first (the cause
   * fixed, as a top-up for a payout); for a cancel it is kept, so a bulk retry that resumed it only
   * parks it again.
   * True while the journey is parked (nothing else to do this round).
   */
  private async actOnParkedJourney(customer: CustomerProgress, state: JourneyState): Promise<boolean> {
    const { plan } = customer;
    // Only the operator's cancel closes it (its command may have gone through unanswered).
    if (plan.journeyPark === 'CANCELLED' && state.stage === 'CLOSED') customer.journeyCancelled = true;
    if (plan.journeyPark === 'NONE' || state.stage !== 'NEEDS_ATTENTION' || state.attention?.errorType !== 'Refused')
      return false;
    const env = this.operatorEnv();
    if (plan.journeyPark === 'CANCELLED') {
      await operatorCancelsJourney(env, plan.externalId);
      customer.journeyCancelled = true;
    } else {
      await this.control.injectFault({ ...this.refusalOf(plan, customer.customerId), count: 0 });
      if (plan.journeyPark === 'RETRIED_IN_BULK') {
        await operatorRetriesRefusedJourneys(env);
        customer.journeyBulkRetries += 1;
      } else {
        await operatorRetriesJourney(env, plan.externalId);
        customer.journeyRetries += 1;
      }
    }
    if (!customer.journeyParksActedOn.includes(state.attention.since))
      customer.journeyParksActedOn.push(state.attention.since);
    return true;
  }

  /**
   * The refusal a parked journey's plan arms at the service: its customer's create, picked by its
   * externalId; or its onramp flow's create, picked by the service's id for its customer.
   */
  private refusalOf(plan: CustomerPlan, customerId?: string): Parameters<SandboxControl['injectFault']>[0] {
    const path = REFUSED_PATH[plan.journeyParkedAt];
    if (plan.journeyParkedAt === 'CUSTOMER_CREATE') return { path, kind: 'REFUSED', externalId: plan.externalId };
    if (customerId === undefined)
      throw new Error(`${plan.externalId}: no customer at the service to refuse the onramp of`);
    return { path, kind: 'REFUSED', customerId };
  }

  /** Payout steps: start it, fail its payment, have the operator act on its park, follow it to its end. */
  private async payout(customer: CustomerProgress, bankAccountId: string): Promise<void> {
    const { plan } = customer;
    const reference = payoutReferenceOf(plan);
    const refused = plan.payout === 'REFUSED_THEN_RETRIED' || plan.payout === 'REFUSED_THEN_CANCELLED';
    if (!customer.payoutStarted) {
      if (!refused) await this.control.creditBalance({ currency: 'USDT', amount: PAYOUT_AMOUNT });
      await this.payouts.start({
        reference,
        bankAccountId,
        deductCurrency: 'USDT',
        deductAmount: refused ? REFUSED_PAYOUT_AMOUNT : PAYOUT_AMOUNT,
        timings: PAYOUT_TIMINGS,
      });
      customer.payoutStarted = true;
    }
    const state = await this.payouts.state(reference);
    customer.payoutState = state;
    if (
      plan.payout === 'FAILED' &&
      state.paymentId &&
      !customer.paymentFailed &&
      !customer.missedMoves.some((move) => move.startsWith('fail'))
    ) {
      customer.paymentFailed = await this.serviceMoves(customer, "fail the payout's payment", () =>
        this.control.failPayment(state.paymentId!, 'chaos: the beneficiary bank refused it'),
      );
    }
    // Acted on at every round it is seen parked: a bulk retry may have resumed another's payout with
    // this one's top-up (refused again, parked again), or not yet seen this one in visibility.
    if (refused && state.stage === 'NEEDS_ATTENTION') {
      if (plan.payout === 'REFUSED_THEN_RETRIED') {
        const park = state.attention?.since ?? '';
        if (customer.toppedUpFor !== park) {
          await this.control.creditBalance({ currency: 'USDT', amount: REFUSED_PAYOUT_AMOUNT });
          customer.toppedUpFor = park;
        }
        if (plan.retriedInBulk) await operatorRetriesRefusedPayouts(this.operatorEnv());
        else await operatorRetriesPayout(this.operatorEnv(), reference);
      } else {
        await operatorCancelsPayout(this.operatorEnv(), reference);
      }
      customer.operatorActed = true;
    }
  }

  private operatorEnv(): NodeJS.ProcessEnv {
    return { ...process.env, TEMPORAL_ADDRESS: this.temporalAddress, TEMPORAL_TASK_QUEUE: this.taskQueue };
  }

  /** A move of the service's that the record may have outrun (the autopilot went first): true when it took. */
  private async serviceMoves(customer: CustomerProgress, move: string, act: () => Promise<unknown>): Promise<boolean> {
    return act().then(
      () => true,
      (error: unknown) => {
        customer.missedMoves.push(`${move}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
        return false;
      },
    );
  }

  /**
   * Removes the ended journey as retention would; true once it is gone. The delete returns before the
   * history is gone, and a signup before that would find the closed journey (and be answered with
   * it) instead of starting a new one.
   */
  private async removeJourney(externalId: string): Promise<boolean> {
    const handle = this.rampflow.journeyHandle(externalId);
    const gone = await handle.describe().then(
      () => false,
      (error: unknown) => error instanceof WorkflowNotFoundError,
    );
    if (gone) return true;
    await handle.result();
    await this.temporal(['workflow', 'delete', '--workflow-id', journeyWorkflowId(externalId)]);
    return false;
  }

  private async signUp(plan: CustomerPlan): Promise<void> {
    const customer = { externalId: plan.externalId, realName: 'Chaos Customer', email: 'customer@example.com' };
    if (plan.signupVia === 'CLIENT_LIBRARY') {
      await this.rampflow.startJourney({ customer, ...USD_RAMPS, timings: JOURNEY_TIMINGS });
      return;
    }
    if (plan.signupVia === 'PARTNER_API') {
      await this.partnerApi.signUp({ customer, ...USD_RAMPS, timings: JOURNEY_TIMINGS });
      return;
    }
    const input = JSON.stringify({ customer, ...USD_RAMPS, timings: JOURNEY_TIMINGS });
    try {
      await this.temporal([
        'workflow',
        'start',
        '--task-queue',
        this.taskQueue,
        '--type',
        'customerJourney',
        '--workflow-id',
        journeyWorkflowId(plan.externalId),
        '--input',
        input,
      ]);
    } catch (error) {
      // An earlier try started it and only its answer was lost (Temporal restarting): it is signed up.
      if (!/already (started|running)/i.test(String((error as { stderr?: string }).stderr ?? error))) throw error;
    }
  }

  private async temporal(args: string[]): Promise<void> {
    const cli = await requireTemporalCli();
    await run(cli.path, [...args, '--address', this.temporalAddress], { timeout: 30_000 });
  }
}

/** Both deposits were made and the journey shows each ended. */
function bothDepositsEnded(customer: CustomerProgress, state: JourneyState): boolean {
  const ended = (depositId: string | undefined) =>
    state.deposits.recent.some((deposit) => deposit.depositId === depositId && DEPOSIT_ENDED.has(deposit.stage));
  return ended(customer.onrampDepositId) && ended(customer.offrampDepositId);
}

/** Whether a customer did everything its plan asks and its journey (and payout) shows it. */
export function customerAtRest(customer: CustomerProgress): boolean {
  const { plan, lastState } = customer;
  if (customer.signups === 0) return false;
  // Cancelled: it ended CLOSED at its park, before its customer was created.
  if (plan.journeyPark === 'CANCELLED') return customer.journeyCancelled && lastState?.stage === 'CLOSED';
  // Retried: its journey went on and created its customer (parked at its onramp's setup: the deposits
  // below need the onramp set up).
  if (plan.journeyPark !== 'NONE' && !customer.customerId) return false;
  if (plan.kyc !== 'PENDING' && !customer.kycDecided) return false;
  if (plan.kyc !== 'APPROVED') return true;
  if (plan.closesAndReturns) return customer.signups === 2 && lastState?.stage === 'ACTIVE';
  if (
    !customer.onrampDepositId ||
    !customer.offrampDepositId ||
    !customer.onrampSteered ||
    (customer.held && !customer.documentSubmitted)
  )
    return false;
  // A refund after the payout waits for the offramp deposit to complete, one during the trade or the
  // payout for that wait; one missed (the deposit never completed, or ended first) is the invariants' to judge.
  if (LATER_REFUNDS.has(plan.refund) && !customer.refunded) return false;
  if (plan.payout !== 'NONE' && !PAYOUT_ENDED.has(customer.payoutState?.stage ?? '')) return false;
  return lastState !== undefined && lastState.deposits.open.length === 0 && lastState.deposits.openNotShown === 0;
}

export function describeCustomer(customer: CustomerProgress): string {
  const { plan, lastState, payoutState } = customer;
  const deposits = lastState
    ? [...lastState.deposits.open, ...lastState.deposits.recent]
        .map((deposit) => `${deposit.kind} ${deposit.depositId} ${deposit.stage}`)
        .join(', ')
    : '';
  const payout = payoutState
    ? `; payout ${payoutState.reference} ${payoutState.stage}${payoutState.attention ? ` (${payoutState.attention.reason})` : ''}`
    : '';
  return (
    `${plan.externalId} (${plan.kyc}): journey ${lastState?.stage ?? 'never answered'} (${withoutLinks(lastState?.waitingFor ?? '')}) [${deposits}]${payout}` +
    `${customer.missedMoves.length > 0 ? `; missed: ${customer.missedMoves.join('; ')}` : ''}${customer.lastError ? `; last error: ${customer.lastError}` : ''}`
  );
}

/** What a journey waits for may name the customer's KYC link: customer data, kept out of the run's output. */
const withoutLinks = (text: string): string => text.replace(/https?:\/\/\S+/g, '(link)');
