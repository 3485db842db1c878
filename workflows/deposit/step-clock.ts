/**
 * The deadline of a deposit's current step (workflows/deposit/workflow.ts), and whether its next wait asks the
 * service at once. A step's deadline starts when it first waits and restarts when the deposit moves to
 * another step or an operator resumes it.
 */
export class DepositStepClock {
  /** Set by an operator's retry: the retried wait asks the service at once instead of after a poll interval. */
  private lookFirst = false;

  /** @param deadlineAt the step's deadline the previous run carried (continue-as-new does not extend it) */
  constructor(private deadlineAt?: number) {}

  /** The deadline of the step in progress, for the next run to keep. */
  get carriedDeadline(): number | undefined {
    return this.deadlineAt;
  }

  /** The current step's deadline: `startAt()` (asked only then) if the step has none yet. */
  deadline(startAt: () => number): number {
    this.deadlineAt ??= startAt();
    return this.deadlineAt;
  }

  /** The next wait gets a deadline of its own. */
  restart(): void {
    this.deadlineAt = undefined;
  }

  /** After an operator's decision: a retry looks before it waits. */
  resumed(byRetry: boolean): void {
    this.lookFirst = byRetry;
    this.deadlineAt = undefined;
  }

  /** Whether this wait should ask the service first; asked once. */
  takeLookFirst(): boolean {
    const look = this.lookFirst;
    this.lookFirst = false;
    return look;
  }
}
