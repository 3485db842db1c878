/**
 * Parking for operators: a failure a retry cannot fix moves a workflow to NEEDS_ATTENTION with the
 * reason, and waits there (no timers, so a parked workflow costs nothing) until an operator resumes it
 * with the `retry` update, optionally with corrected input, or ends it with `cancel`.
 */
import { condition, setHandler } from '@temporalio/workflow';
import type { EndRequest, RetryRequest } from './messages';
import { isoNow } from './clock';
import { cancelUpdate, retryUpdate, type Attention } from './messages';
import type { ParkRequest } from './service-failures';

export type OperatorDecision = { kind: 'retry'; request: RetryRequest } | { kind: 'cancel'; reason: string };

export class OperatorDesk {
  attention: Attention | undefined;
  private decision: OperatorDecision | undefined;

  /** Installs the `retry` and `cancel` update handlers, whose validators accept them only while parked. */
  constructor() {
    setHandler(
      retryUpdate,
      (request) => {
        this.decision = { kind: 'retry', request };
        return { resumed: this.attention?.stage ?? '' };
      },
      { validator: (_request: RetryRequest) => this.assertParked('retry') },
    );
    setHandler(
      cancelUpdate,
      (request) => {
        this.decision = { kind: 'cancel', reason: request.reason ?? 'cancelled by an operator' };
        return { cancelled: true as const };
      },
      { validator: (_request: EndRequest) => this.assertParked('cancel') },
    );
  }

  private assertParked(what: string): void {
    if (!this.attention) throw new Error(`nothing to ${what}: the workflow is not in NEEDS_ATTENTION`);
    if (this.decision) throw new Error(`an operator already chose to ${this.decision.kind}`);
  }

  /** Parks `stage` for the reason given and waits for an operator's decision. */
  async park(stage: string, request: ParkRequest, onParked: () => void): Promise<OperatorDecision> {
    this.attention = { reason: request.reason, stage, since: isoNow(), ...(request.errorType ? { errorType: request.errorType } : {}) };
    this.decision = undefined;
    onParked();
    await condition(() => this.decision !== undefined);
    const decision = this.decision!;
    this.attention = undefined;
    this.decision = undefined;
    return decision;
  }
}
