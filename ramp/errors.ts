/**
 * The errors the ramp client throws (DESIGN: "Errors are typed by the body's status first, then the
 * HTTP code"). Each names the call (method and path, never the query, which may carry personal data),
 * the HTTP status when there was one, the service's own message, and whether a retry can help.
 *
 * None carries a secret, a signature or a header: errors end up in logs and workflow histories.
 */

export interface RampErrorDetails {
  method: string;
  /** The endpoint path without the query string. */
  path: string;
  /** HTTP status of the response; undefined when there was no response (or the check ran before sending). */
  httpStatus?: number;
  /** The service's `status` field, when the body had one. */
  serviceStatus?: string;
  /** The service's `message`, when the body had one. */
  serviceMessage?: string;
  cause?: unknown;
}

export abstract class RampError extends Error {
  abstract readonly retryable: boolean;
  readonly method: string;
  readonly path: string;
  readonly httpStatus: number | undefined;
  readonly serviceStatus: string | undefined;
  readonly serviceMessage: string | undefined;

  constructor(summary: string, details: RampErrorDetails) {
    super(describe(summary, details), details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.method = details.method;
    this.path = details.path;
    this.httpStatus = details.httpStatus;
    this.serviceStatus = details.serviceStatus;
    this.serviceMessage = details.serviceMessage;
  }
}

/**
 * `POST /customer/create (HTTP 422): the service refused the parameters: INVALID_PARAMETERS: externalId already used`.
 * The service's own words come last and verbatim (its status word, then its message): they are what
 * a user greps for and quotes to the provider's support.
 */
function describe(summary: string, details: RampErrorDetails): string {
  const httpStatus = details.httpStatus === undefined ? '' : ` (HTTP ${details.httpStatus})`;
  return `${details.method} ${details.path}${httpStatus}: ${summary}${serviceWords(details)}`;
}

function serviceWords({ serviceStatus, serviceMessage }: RampErrorDetails): string {
  const statusWord = serviceStatus !== undefined && serviceStatus !== 'SUCCESS' ? serviceStatus : undefined;
  const words = [statusWord, serviceMessage || undefined].filter((word) => word !== undefined);
  return words.length === 0 ? '' : `: ${words.join(': ')}`;
}

/** 422 `INVALID_PARAMETERS`, or a parameter our own checks refused before sending. Fix the input. */
export class RampInvalidParametersError extends RampError {
  readonly retryable = false;
}

/**
 * 422 `UNAUTHORISED` or a gateway's 401 (whose body may not be JSON). The client has already
 * corrected a skewed clock and retried once; what is left is a key, secret or IP whitelist problem.
 */
export class RampUnauthorisedError extends RampError {
  readonly retryable = false;
}

/** 422 `FAILED`, or a 422 with a status the interface does not list: the operation failed; a later retry may succeed. */
export class RampFailedError extends RampError {
  readonly retryable = true;
}

/** The older generation answered 200 with a failure `status` (its values are not shown). */
export class RampLegacyFailureError extends RampError {
  readonly retryable = false;
}

/**
 * No usable response: connection refused, DNS failure, TLS failure, timeout, reset. For a POST this
 * is raised only when the request provably never left the machine; otherwise see RampOutcomeUnknownError.
 */
export class RampConnectionError extends RampError {
  readonly retryable = true;
}

/**
 * A POST that may have reached the service but gave no answer we can trust (timeout or reset after
 * sending, a 5xx). The service has no idempotency key, so do not resend blindly: look the object up,
 * then create it if it is not there. `retryable` is false for exactly that reason.
 */
export class RampOutcomeUnknownError extends RampError {
  readonly retryable = false;
}

/** An HTTP status the interface does not describe (404, 5xx after retries, 429 after retries). */
export class RampHttpError extends RampError {
  readonly retryable: boolean;

  constructor(summary: string, details: RampErrorDetails & { httpStatus: number }) {
    super(summary, details);
    this.retryable = details.httpStatus === 429 || details.httpStatus >= 500;
  }
}

/**
 * 429: the service refused the call for its rate (it did not act on it), asking the caller to wait
 * `retryAfterMs` (its Retry-After, or the gate's remaining wait). Retryable, never after less than
 * that wait: an activity fails with it as its `nextRetryDelay` (activities/failures.ts).
 */
export class RampRateLimitedError extends RampHttpError {
  readonly retryAfterMs: number;

  /** The 429 is the service's answer, or (for a call the gate held back unsent, its message says so) an earlier one's. */
  constructor(summary: string, details: RampErrorDetails & { retryAfterMs: number }) {
    super(summary, { ...details, httpStatus: 429 });
    this.retryAfterMs = details.retryAfterMs;
  }
}

/** A success response whose body does not match the schema; the message names the endpoint and each field. */
export class RampSchemaError extends RampError {
  readonly retryable = false;
  /** Dotted paths of the fields that failed, e.g. `data.list.0.status`. */
  readonly fields: string[];

  constructor(summary: string, details: RampErrorDetails & { fields: string[] }) {
    super(summary, details);
    this.fields = details.fields;
  }
}
