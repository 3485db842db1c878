/**
 * The ramp client's settings from the environment: RAMP_BASE_URL, RAMP_API_KEY, RAMP_API_SECRET,
 * and the optional RAMP_ASSUMPTIONS_FILE (assumptions-file.ts). Problems come back one line per variable and never quote a value (one of them is the secret).
 */
import { z } from 'zod';

function requiredText(name: string) {
  return z
    .string({ error: (issue) => (issue.input === undefined ? `${name} is not set` : `${name} must be text`) })
    .trim()
    .min(1, `${name} is empty`);
}

export const RampEnvironmentSchema = z.object({
  RAMP_BASE_URL: requiredText('RAMP_BASE_URL').pipe(
    z.url({ protocol: /^https?$/, error: 'RAMP_BASE_URL must be an http:// or https:// URL' }),
  ),
  RAMP_API_KEY: requiredText('RAMP_API_KEY'),
  RAMP_API_SECRET: requiredText('RAMP_API_SECRET'),
  RAMP_ASSUMPTIONS_FILE: z.string().optional(),
});
export type RampEnvironment = z.infer<typeof RampEnvironmentSchema>;

export type RampEnvironmentResult = { ok: true; value: RampEnvironment } | { ok: false; problems: string[] };

export function readRampEnvironment(env: NodeJS.ProcessEnv): RampEnvironmentResult {
  const result = RampEnvironmentSchema.safeParse(env);
  if (result.success) return { ok: true, value: result.data };
  // The first problem per variable is enough to fix it.
  const byVariable = new Map<string, string>();
  for (const issue of result.error.issues) {
    const variable = String(issue.path[0]);
    if (!byVariable.has(variable)) byVariable.set(variable, issue.message);
  }
  return { ok: false, problems: [...byVariable.values()] };
}
