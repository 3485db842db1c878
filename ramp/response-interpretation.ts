/**
 * Turns one HTTP response into a body to use or a typed error, keyed on the body's `status` first
 * and the HTTP code second (DESIGN). Pure: the retry decisions built on it live in http-client.ts.
 */
import type { RampAssumptions } from './assumptions';
import {
  RampError,
  RampFailedError,
  RampHttpError,
  RampInvalidParametersError,
  RampLegacyFailureError,
  RampSchemaError,
  RampUnauthorisedError,
  type RampErrorDetails,
} from './errors';

/** `envelope`: the new generation (200 + `SUCCESS`, else 422). `legacy`: 200 always, the outcome in `status`. */
export type ResponseGeneration = 'envelope' | 'legacy';

export type Interpretation =
  | { ok: true; body: Record<string, unknown> }
  | {
      ok: false;
      error: RampError;
      /** 429 or 5xx: the service may answer differently soon. */
      transient: boolean;
    };

export interface InterpretInput {
  method: string;
  path: string;
  httpStatus: number;
  bodyText: string;
  generation: ResponseGeneration;
  assumptions: RampAssumptions;
}

/** Service messages reach logs; a long HTML error page is not a message. */
const MAX_SERVICE_MESSAGE_LENGTH = 300;

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function serviceMessageOf(body: Record<string, unknown> | undefined): string | undefined {
  const message = body?.message ?? body?.msg;
  return typeof message === 'string' ? message.slice(0, MAX_SERVICE_MESSAGE_LENGTH) : undefined;
}

export function interpretResponse(input: InterpretInput): Interpretation {
  const body = parseJsonObject(input.bodyText);
  const rawStatus = body?.status;
  const serviceStatus = typeof rawStatus === 'string' || typeof rawStatus === 'number' ? String(rawStatus) : undefined;
  const details: RampErrorDetails = {
    method: input.method,
    path: input.path,
    httpStatus: input.httpStatus,
    serviceStatus,
    serviceMessage: serviceMessageOf(body),
  };
  const fail = (error: RampError, transient = false): Interpretation => ({ ok: false, error, transient });

  // 1. The body's status, when it is one the interface names.
  switch (serviceStatus) {
    case 'INVALID_PARAMETERS':
      return fail(new RampInvalidParametersError('the service refused the parameters', details));
    case 'UNAUTHORISED':
      return fail(new RampUnauthorisedError('the service refused the credentials', details));
    case 'FAILED':
      return fail(new RampFailedError('the operation failed', details));
  }
  const isSuccessCode = input.httpStatus >= 200 && input.httpStatus < 300;
  if (isSuccessCode && body !== undefined) {
    if (input.generation === 'envelope' && serviceStatus === 'SUCCESS') return { ok: true, body };
    if (input.generation === 'legacy' && (typeof rawStatus === 'string' || typeof rawStatus === 'number')) {
      return input.assumptions.isLegacySuccessStatus(rawStatus)
        ? { ok: true, body }
        : fail(new RampLegacyFailureError('the older generation answered a failure', details));
    }
  }

  // 2. The HTTP code.
  if (input.httpStatus === 401) return fail(new RampUnauthorisedError('the gateway refused the credentials', details));
  if (input.httpStatus === 422)
    return fail(
      new RampFailedError(
        `the service answered a failure status the interface does not list${serviceStatus === undefined ? ' (none)' : ''}`,
        details,
      ),
    );
  if (input.httpStatus === 429 || input.httpStatus >= 500) {
    return fail(
      new RampHttpError(input.httpStatus === 429 ? 'rate limited' : 'the service is unavailable', {
        ...details,
        httpStatus: input.httpStatus,
      }),
      true,
    );
  }
  if (isSuccessCode) {
    const summary =
      body === undefined
        ? 'the response is not a JSON object'
        : `field "status": expected ${input.generation === 'envelope' ? '"SUCCESS"' : 'a string or number'}, got ${JSON.stringify(rawStatus ?? null)}`;
    return fail(new RampSchemaError(summary, { ...details, fields: body === undefined ? [] : ['status'] }));
  }
  return fail(new RampHttpError('unexpected HTTP status', { ...details, httpStatus: input.httpStatus }));
}
