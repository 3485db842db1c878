/**
 * How workflows read activity failures. Activities turn the client's typed errors into application
 * failures whose type names the error; the types a retry cannot fix park the workflow for an operator.
 */
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import type { Hints } from './trust';

/**
 * Failure types the activities raise as non-retryable (see activities/failures.ts). UNAUTHORISED is
 * not among them: bad credentials or a clock far off fail every call alike, so it is one incident for
 * the worker to report, and calls keep retrying until it is fixed rather than parking one by one.
 * `Refused` is a create the service kept answering FAILED for longer than the worker's bound
 * (activities/creates.ts): the workflow parks with the service's words.
 */
export const NON_RETRYABLE_SERVICE_ERRORS = ['InvalidParameters', 'NotFound', 'Conflict', 'Refused'] as const;

/** A wait that was parked at its deadline, and how the parked workflow can see it come true later. */
export interface LateFact {
  what: string;
  settled: () => boolean;
  poll: () => Promise<void>;
  firstIntervalMs: number;
  /** Deliveries' hints that the fact may have come true: looked at at once (workflows/common/waiting.ts). */
  hints?: Hints;
}

/** Thrown inside workflow code to park the current stage for an operator. */
export class ParkRequest extends Error {
  constructor(
    readonly reason: string,
    readonly errorType?: string,
    /** Set when the park is a deadline: the fact may still come true, and then the stage resumes by itself. */
    readonly lateFact?: LateFact,
  ) {
    super(reason);
    this.name = 'ParkRequest';
  }
}

/**
 * The park request an activity failure calls for: a non-retryable service error, or a retryable one
 * whose attempts ran out (the service kept failing). Anything else (a bug, a cancellation) is rethrown.
 */
export function parkRequestFor(error: unknown, doing: string): ParkRequest {
  if (error instanceof ActivityFailure) {
    const cause = error.cause;
    if (cause instanceof ApplicationFailure) {
      return new ParkRequest(`${doing}: ${cause.message}`, cause.type ?? undefined);
    }
    return new ParkRequest(`${doing}: ${cause?.message ?? error.message}`, cause?.name);
  }
  throw error;
}

/** Runs an activity call and turns its failure into a park request saying what was being done. */
export async function orPark<T>(doing: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw parkRequestFor(error, doing);
  }
}

/**
 * Whether a read failed because the service has no such record: its "not found" (NotFound, made final
 * by a confirming read), or a refusal of the id itself (InvalidParameters: a made-up id of the wrong
 * shape). Used for records a delivery named, where absence is an answer, never a reason to park.
 */
export function isAbsent(error: unknown): boolean {
  const cause = error instanceof ActivityFailure ? error.cause : undefined;
  return cause instanceof ApplicationFailure && (cause.type === 'NotFound' || cause.type === 'InvalidParameters');
}
