/**
 * The shape every sandbox endpoint is written in: a method, a path and a handler that returns the
 * `data` to wrap in `{status: "SUCCESS", data}` or throws a SandboxError. server.ts does the rest
 * (authentication, faults, envelopes, logging) once for all of them.
 */
import type { z } from 'zod';
import { invalidParameters } from './errors';
import type { Query } from './query';

export interface RouteContext {
  partnerId: string;
  query: Query;
  /** The raw body bytes and their content type, for the multipart endpoint. */
  rawBody: Buffer;
  contentType: string | undefined;
}

export interface RouteDefinition {
  method: 'GET' | 'POST';
  path: string;
  /** The older generation answers every outcome with HTTP 200 (interface: "Versioning"). */
  generation?: 'new' | 'old';
  handler: (context: RouteContext) => unknown;
}

/** Parses a JSON request body and validates it; any problem is INVALID_PARAMETERS with the reason. */
export function jsonBody<T extends z.ZodType>(context: RouteContext, schema: T): z.infer<T> {
  if (context.contentType === undefined || !/^application\/json\b/i.test(context.contentType)) {
    throw invalidParameters('the body must be sent as application/json');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(context.rawBody.toString('utf8'));
  } catch {
    throw invalidParameters('the body is not valid JSON');
  }
  const result = schema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? 'body' : issue.path.join('.');
    throw invalidParameters(`${where}: ${issue?.message ?? 'invalid'}`);
  }
  return result.data;
}
