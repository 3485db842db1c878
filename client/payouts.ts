/**
 * Payouts from the partner's balance: start one (`payout/<reference>`), read its state, and the
 * operator's retry and cancel. The partner's reference is the business key, so starting the same
 * reference again returns the payout that exists, running or finished, and never pays twice.
 */
import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { z } from 'zod';
import { cancelUpdate, retryUpdate } from '../workflows/common/messages';
import type { payout } from '../workflows/payout/workflow';
import {
  PAYOUT_REFERENCE,
  payoutStateQuery,
  payoutWorkflowId,
  type PayoutInput,
  type PayoutStage,
  type PayoutState,
} from '../workflows/payout/messages';
import { RampStage } from '../observability/search-attributes';
import { RampflowInputError, RampflowWorkflowEndedError } from './errors';
import { explained, stateOrEnd } from './explained';
import { listed } from './listing';
import { startedOrExisting } from './start-once';
import { payoutListQuery, toPayoutListing, type PayoutFilter, type PayoutListing } from './visibility';
import { workflowEndOf } from './workflow-end';
import { executeUpdateOnce } from './update-once';
import { resetStuckWorkflow, type StuckWorkflowReset } from './workflow-reset';

export type PayoutHandle = WorkflowHandle<typeof payout>;
export type PayoutRequest = PayoutInput;

/**
 * How often `result` asks a running payout's state whether it parked: a parked payout's workflow does
 * not end (it waits for an operator), so its result alone would never come.
 */
const PARKED_CHECK_MS = 1_000;

/** Where `result` stops waiting: settled, failed or cancelled (the workflow's ends), or parked for an operator. */
const WAIT_ENDS: readonly PayoutStage[] = ['SETTLED', 'FAILED', 'CANCELLED', 'NEEDS_ATTENTION'];

const PayoutRequestSchema = z.strictObject({
  reference: z.string().regex(PAYOUT_REFERENCE, 'must be 1 to 64 letters, digits or . _ : -'),
  bankAccountId: z.string().min(1).max(200),
  deductCurrency: z.enum(['USDT', 'USDC']),
  deductAmount: z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'must be a positive decimal string such as "25.50"')
    .refine((amount) => Number(amount) > 0, 'must be greater than zero'),
  timings: z
    .strictObject({
      pollIntervalSeconds: z.number().positive().optional(),
      settlementDeadlineSeconds: z.number().positive().optional(),
    })
    .optional(),
});

export function parsePayoutRequest(request: unknown): PayoutInput {
  const parsed = PayoutRequestSchema.safeParse(request);
  if (!parsed.success)
    throw new RampflowInputError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(request)'}: ${issue.message}`),
    );
  return parsed.data;
}

export class PayoutClient {
  constructor(
    private readonly temporal: Client,
    private readonly taskQueue: string,
  ) {}

  /**
   * Starts the payout, or returns the one that already has this reference (its own input stands).
   * @throws RampflowInputError naming every bad field, before anything reaches Temporal
   */
  async start(request: PayoutRequest): Promise<PayoutHandle> {
    const input = parsePayoutRequest(request);
    const workflowId = payoutWorkflowId(input.reference);
    return startedOrExisting(
      () =>
        this.temporal.workflow.start<typeof payout>('payout', {
          workflowId,
          taskQueue: this.taskQueue,
          args: [input],
          // A finished payout is never started again: the same reference is the same payout.
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: [{ key: RampStage, value: 'CREATING_PAYMENT' }],
          staticSummary: `payout ${input.deductAmount} ${input.deductCurrency}`,
        }),
      () => this.handle(input.reference),
    );
  }

  handle(reference: string): PayoutHandle {
    return this.temporal.workflow.getHandle<typeof payout>(payoutWorkflowId(reference));
  }

  /** @throws RampflowWorkflowEndedError when the payout's workflow failed, was terminated, timed out or was cancelled */
  async state(reference: string): Promise<PayoutState> {
    return stateOrEnd(this.handle(reference), `payout ${reference}`, (handle) => handle.query(payoutStateQuery));
  }

  /**
   * Waits until the payout settles, fails, is cancelled or parks in NEEDS_ATTENTION, and returns its
   * state (parked: with its `attention`). The workflow's result answers the first three; its state,
   * read every second meanwhile, tells a park.
   * @throws RampflowWorkflowEndedError when its workflow failed, was terminated or timed out instead
   */
  async result(reference: string): Promise<PayoutState> {
    const what = `payout ${reference}`;
    return explained(this.handle(reference), what, async (handle) => {
      let waiting = true;
      const ended = handle.result().then(
        (state) => state,
        (error: unknown) => {
          if (error instanceof WorkflowFailedError)
            throw new RampflowWorkflowEndedError(what, workflowEndOf(error), undefined, { cause: error });
          throw error;
        },
      );
      // Left unawaited once the payout parks; the client's close then ends its long poll.
      ended.catch(() => undefined);
      const parked = (async (): Promise<PayoutState | undefined> => {
        while (waiting) {
          const state = await handle.query(payoutStateQuery).catch(() => undefined);
          if (state && WAIT_ENDS.includes(state.stage)) return state;
          await new Promise((wake) => setTimeout(wake, PARKED_CHECK_MS).unref());
        }
        return undefined;
      })();
      try {
        return await Promise.race([ended, parked.then((state) => state ?? ended)]);
      } finally {
        waiting = false;
      }
    });
  }

  /**
   * Payouts newest first, optionally only those at one stage (e.g. NEEDS_ATTENTION), as visibility
   * indexed them (a moment behind the workflows).
   */
  async listPayouts(filter: PayoutFilter = {}): Promise<PayoutListing[]> {
    return listed(this.temporal, payoutListQuery(filter), toPayoutListing);
  }

  /**
   * Frees a payout whose workflow tasks fail every time, as JourneyOperations.resetStuck does a journey.
   * Its payment is looked up by reference before it is created again, and a payout whose create is
   * in flight is refused (client/workflow-reset.ts).
   */
  async resetStuck(reference: string, options: { dryRun?: boolean } = {}): Promise<StuckWorkflowReset> {
    return resetStuckWorkflow(this.temporal, payoutWorkflowId(reference), `payout ${reference}`, options);
  }

  /** Resumes a parked payout (after the balance was topped up, say): it looks its payment up again before creating it. */
  async retry(reference: string): Promise<void> {
    await explained(
      this.handle(reference),
      `payout ${reference}`,
      (handle) => executeUpdateOnce(handle, retryUpdate, [{}]),
      'retry',
    );
  }

  /**
   * Ends a parked payout. The payout reads its payment first: refused (the update fails with the
   * reason) while a payment exists at the service that has not failed.
   */
  async cancel(reference: string, reason?: string): Promise<void> {
    await explained(
      this.handle(reference),
      `payout ${reference}`,
      (handle) => executeUpdateOnce(handle, cancelUpdate, [reason ? { reason } : {}]),
      'cancel',
    );
  }
}
