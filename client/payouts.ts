/**
 * Payouts from the partner's balance: start one (`payout/<reference>`), read its state, and the
 * operator's retry and cancel. The partner's reference is the business key, so starting the same
 * reference again returns the payout that exists, running or finished, and never pays twice.
 */
import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { z } from 'zod';
import { cancelUpdate, retryUpdate } from '../workflows/messages';
import type { payout } from '../workflows/payout';
import { PAYOUT_REFERENCE, payoutStateQuery, payoutWorkflowId, type PayoutInput, type PayoutState } from '../workflows/payout-messages';
import { RampStage } from '../workflows/search-attributes';
import { RampflowInputError, RampflowWorkflowEndedError } from './errors';
import { explained, stateOrEnd } from './explained';
import { startedOrExisting } from './start-once';
import { workflowEndOf } from './workflow-end';

export type PayoutHandle = WorkflowHandle<typeof payout>;
export type PayoutRequest = PayoutInput;

const PayoutRequestSchema = z.strictObject({
  reference: z.string().regex(PAYOUT_REFERENCE, 'must be 1 to 64 letters, digits or . _ : -'),
  bankAccountId: z.string().min(1).max(200),
  deductCurrency: z.enum(['USDT', 'USDC']),
  deductAmount: z.string().regex(/^\d+(\.\d+)?$/, 'must be a positive decimal string such as "25.50"').refine((amount) => Number(amount) > 0, 'must be greater than zero'),
  timings: z.strictObject({ pollIntervalSeconds: z.number().positive().optional(), settlementDeadlineSeconds: z.number().positive().optional() }).optional(),
});

export function parsePayoutRequest(request: unknown): PayoutInput {
  const parsed = PayoutRequestSchema.safeParse(request);
  if (!parsed.success) throw new RampflowInputError(parsed.error.issues.map((issue) => `${issue.path.join('.') || '(request)'}: ${issue.message}`));
  return parsed.data as PayoutInput;
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
   * Waits until the payout settles, parks or is cancelled, and returns its state.
   * @throws RampflowWorkflowEndedError when its workflow failed, was terminated or timed out instead
   */
  async result(reference: string): Promise<PayoutState> {
    const what = `payout ${reference}`;
    return explained(this.handle(reference), what, async (handle) => {
      try {
        return await handle.result();
      } catch (error) {
        if (error instanceof WorkflowFailedError) throw new RampflowWorkflowEndedError(what, workflowEndOf(error), undefined, { cause: error });
        throw error;
      }
    });
  }

  /** Resumes a parked payout (after the balance was topped up, say): it looks its payment up again before creating it. */
  async retry(reference: string): Promise<void> {
    await explained(this.handle(reference), `payout ${reference}`, (handle) => handle.executeUpdate(retryUpdate, { args: [{}] }), 'retry');
  }

  /**
   * Ends a parked payout. The payout reads its payment first: refused (the update fails with the
   * reason) while a payment exists at the service that has not failed.
   */
  async cancel(reference: string, reason?: string): Promise<void> {
    await explained(this.handle(reference), `payout ${reference}`, (handle) => handle.executeUpdate(cancelUpdate, { args: [reason ? { reason } : {}] }), 'cancel');
  }
}
