/**
 * Failures a route raises. The new generation answers them as HTTP 422 `{status, message}`
 * (interface: "Errors"); the older generation answers HTTP 200 with the same body.
 */
export type FailureStatus = 'INVALID_PARAMETERS' | 'UNAUTHORISED' | 'FAILED';

export class SandboxError extends Error {
  constructor(
    readonly status: FailureStatus,
    message: string,
    /** Extra body fields (the canonical string in debug mode). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'SandboxError';
  }
}

export function invalidParameters(message: string): SandboxError {
  return new SandboxError('INVALID_PARAMETERS', message);
}

export function failed(message: string): SandboxError {
  return new SandboxError('FAILED', message);
}

/**
 * A missing record and another partner's record answer alike. FAILED because the parameters were
 * well-formed; the operation found nothing to act on.
 */
export function notFound(resource: string): SandboxError {
  return new SandboxError('FAILED', `${resource} not found`);
}
