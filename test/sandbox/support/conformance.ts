/**
 * The faithfulness check: sandbox responses must parse with the client's own schemas (ramp/schemas),
 * so a client built on those schemas reads what the sandbox sends.
 */
import { expect } from 'vitest';
import type { z } from 'zod';

export function conforms<T extends z.ZodType>(schema: T, data: unknown): z.infer<T> {
  const result = schema.safeParse(data);
  if (!result.success) expect.fail(`does not match the client's schema: ${JSON.stringify(result.error.issues)}`);
  return result.data;
}
