/**
 * One incident, not thousands. When every call to the service fails the same way (UNAUTHORISED after a
 * key rotation or with a clock far off, the service unreachable or answering 5xx for hours), each
 * workflow only sees its own call retrying. The worker sees them all: after a run of consecutive
 * failures of one cause it logs one line naming the cause and what to check (never a secret), sets the
 * `rampflow_service_outage` gauge for that cause to 1, and logs once more, setting it back to 0, when a
 * call succeeds again. Activities keep retrying with capped backoff meanwhile (workflows/common/calls.ts).
 */
import type { Logger, MetricGauge } from '@temporalio/common';
import {
  RampConnectionError,
  RampError,
  RampHttpError,
  RampOutcomeUnknownError,
  RampRateLimitedError,
  RampUnauthorisedError,
} from '../ramp';

export const OUTAGE_CAUSES = ['UNAUTHORISED', 'UNREACHABLE', 'SERVER_ERROR'] as const;
export type OutageCause = (typeof OUTAGE_CAUSES)[number];

/** What an operator should check for each cause. */
const ADVICE: Record<OutageCause, string> = {
  UNAUTHORISED:
    "the service refuses our signature: check RAMP_API_KEY and RAMP_API_SECRET (a rotated key?) and the worker's clock",
  UNREACHABLE: 'the service cannot be reached: check RAMP_BASE_URL, DNS and the network',
  SERVER_ERROR: 'the service answers with server errors: it is down or overloaded',
};

/** Consecutive failures of one cause, with no success between, that make an outage. */
export const OUTAGE_AFTER_FAILURES = 20;

export class ServiceHealth {
  private cause: OutageCause | undefined;
  private consecutive = 0;
  private outage: { cause: OutageCause; since: Date; failures: number } | undefined;

  constructor(
    /** The worker's logger (the SDK's Runtime logger, which the worker process routes to pino). */
    private readonly logger: Pick<Logger, 'warn' | 'info'>,
    private readonly gauge?: MetricGauge,
  ) {}

  /** The outage in progress, if any (for tests and the worker's status). */
  get current(): { cause: OutageCause; since: Date; failures: number } | undefined {
    return this.outage;
  }

  succeeded(): void {
    this.consecutive = 0;
    this.cause = undefined;
    if (!this.outage) return;
    const { cause, since, failures } = this.outage;
    this.outage = undefined;
    this.gauge?.set(0, { cause });
    this.logger.info('the ramp service answers again; waiting workflows resume by themselves', {
      cause,
      failedCalls: failures,
      outageSeconds: Math.round((Date.now() - since.getTime()) / 1000),
    });
  }

  failed(error: unknown): void {
    const cause = outageCauseOf(error);
    if (cause === undefined) return; // a refusal of one request (bad parameters, not found) says nothing of the service
    if (cause !== this.cause) {
      this.cause = cause;
      this.consecutive = 0;
    }
    this.consecutive += 1;
    if (this.outage?.cause === cause) {
      this.outage.failures += 1;
      return;
    }
    if (this.consecutive < OUTAGE_AFTER_FAILURES) return;
    if (this.outage) this.gauge?.set(0, { cause: this.outage.cause });
    this.outage = { cause, since: new Date(), failures: this.consecutive };
    this.gauge?.set(1, { cause });
    this.logger.warn(
      `every call to the ramp service fails: ${ADVICE[cause]}; calls keep retrying and resume by themselves once it is fixed`,
      { cause, consecutiveFailures: this.consecutive },
    );
  }
}

export function outageCauseOf(error: unknown): OutageCause | undefined {
  if (!(error instanceof RampError)) return undefined;
  if (error instanceof RampUnauthorisedError) return 'UNAUTHORISED';
  if (error instanceof RampConnectionError || error instanceof RampOutcomeUnknownError) return 'UNREACHABLE';
  // Rate limiting is the service working as it should; the pacing (ramp/call-pacing.ts) answers it.
  if (error instanceof RampRateLimitedError) return undefined;
  if (error instanceof RampHttpError && error.retryable) return 'SERVER_ERROR';
  return undefined;
}
