/**
 * The run's customers, each following its plan: it signs up (through the client library or the
 * Temporal CLI, as docs/integrating/README.md shows), the service decides its KYC, the partner
 * registers its exit accounts, and it pays in once each way as soon as its journey shows the accounts
 * usable; one refund, one close-and-return. Everything it tells the service goes through the sandbox's
 * own tools (not the partner API), so the service's request log holds rampflow's calls only; what it
 * knows of its journey it reads from Temporal. Each step is tried again on the next round when it
 * fails (Temporal or a worker may be down): the run records what was done, the reference the
 * invariants hold the service's records to.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { RampflowClient } from '../client';
import { requireTemporalCli } from '../dev/temporal-cli';
import { journeyWorkflowId } from '../workflows/ids';
import type { JourneyState } from '../workflows/messages';
import { OFFRAMP_AMOUNT, ONRAMP_AMOUNT, USD_RAMPS } from '../test/faults/support/partner';
import type { SandboxControl } from '../test/support/sandbox';
import { registerTestExits } from '../test/support/test-journeys';
import type { CustomerPlan } from './schedule';
import { JOURNEY_TIMINGS } from './stack';

const USD_SENDER = { accountNumber: '12345678', accountName: 'Chaos Customer' };
const CRYPTO_SENDER = { address: '0x0000000000000000000000000000000000000001', network: 'ETH' };
const run = promisify(execFile);

/** What one customer has done so far. */
export interface CustomerProgress {
  plan: CustomerPlan;
  signups: number;
  customerId?: string;
  exitsRegistered: boolean;
  kycDecided: boolean;
  onrampDepositId?: string;
  offrampDepositId?: string;
  refunded: boolean;
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
  private readonly busy = new Map<CustomerProgress, Promise<unknown>>();

  constructor(
    plans: CustomerPlan[],
    private readonly rampflow: RampflowClient,
    private readonly control: SandboxControl,
    private readonly temporalAddress: string,
    private readonly taskQueue: string,
  ) {
    this.progress = plans.map((plan) => ({ plan, signups: 0, exitsRegistered: false, kycDecided: false, refunded: false, closed: false, removed: false }));
  }

  /** Every id the genuine side knows (the forger copies from these). */
  knownIds(): { externalIds: string[]; ids: string[] } {
    const started = this.progress.filter((customer) => customer.signups > 0);
    return {
      externalIds: started.map((customer) => customer.plan.externalId),
      ids: started.flatMap((customer) => [customer.customerId, customer.onrampDepositId, customer.offrampDepositId].filter((id): id is string => id !== undefined)),
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
          (error: unknown) => (customer.lastError = error instanceof Error ? error.message.split('\n')[0] : String(error)),
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
    const customerId = state.customer.id;
    if (!customerId) return;
    customer.customerId = customerId;
    if (!customer.exitsRegistered) {
      await registerTestExits(this.control, customerId);
      customer.exitsRegistered = true;
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
      customer.onrampDepositId = (await this.control.simulateFiatDeposit({ virtualAccountId: account.id, amount: ONRAMP_AMOUNT, currency: 'USD', sender: USD_SENDER })).id;
    }
    if (!customer.offrampDepositId && address?.id && address.status === 'APPROVED') {
      customer.offrampDepositId = (await this.control.simulateCryptoDeposit({ depositAddressId: address.id, amount: OFFRAMP_AMOUNT, currency: 'USDT', sender: CRYPTO_SENDER })).id;
    }
    if (plan.refundsOnramp && customer.onrampDepositId && !customer.refunded) {
      // The service refunds only a CONFIRMED deposit: tried each round until the autopilot confirmed it.
      await this.control.refundDeposit(customer.onrampDepositId).then(
        () => (customer.refunded = true),
        () => undefined,
      );
    }
    if (plan.closesAndReturns && !customer.closed && state.deposits.byStage.COMPLETED === 2) {
      await this.rampflow.closeCustomer(plan.externalId, 'chaos: the customer left');
      customer.closed = true;
    }
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
    const input = JSON.stringify({ customer, ...USD_RAMPS, timings: JOURNEY_TIMINGS });
    try {
      await this.temporal(['workflow', 'start', '--task-queue', this.taskQueue, '--type', 'customerJourney', '--workflow-id', journeyWorkflowId(plan.externalId), '--input', input]);
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
