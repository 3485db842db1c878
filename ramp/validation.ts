/**
 * zod checks at the client's two edges, with errors that name the endpoint and every failing field:
 * requests before they are sent, responses before they are returned.
 */
import type { z } from 'zod';
import { RampInvalidParametersError, RampSchemaError } from './errors';

interface Endpoint {
  method: string;
  path: string;
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): { fields: string[]; summary: string } {
  const fields = issues.map((issue) => (issue.path.length === 0 ? '(root)' : issue.path.map(String).join('.')));
  const summary = issues.map((issue, index) => `${fields[index]}: ${issue.message}`).join('; ');
  return { fields, summary };
}

/** Parses a success body; a mismatch is a RampSchemaError such as `GET /customer/detail (HTTP 200): response field data.status: ...`. */
export function parseResponseBody<S extends z.ZodType>(
  schema: S,
  body: unknown,
  endpoint: Endpoint & { httpStatus: number },
): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const { fields, summary } = describeIssues(result.error.issues);
  throw new RampSchemaError(`the response does not match the schema: ${summary}`, { ...endpoint, fields });
}

/** Checks request input before anything is sent; a mismatch is a RampInvalidParametersError without an HTTP status. */
export function validateRequest<S extends z.ZodType>(schema: S, input: unknown, endpoint: Endpoint): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const { summary } = describeIssues(result.error.issues);
  throw new RampInvalidParametersError(`invalid request, not sent: ${summary}`, endpoint);
}
