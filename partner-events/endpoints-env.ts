/**
 * Where partner events are delivered (partner-events/endpoints.ts checks the JSON): inline in
 * PARTNER_EVENT_ENDPOINTS, or in the file PARTNER_EVENT_ENDPOINTS_FILE names, which keeps the
 * `whsec_` secrets out of process listings, shell histories and compose files. Not both: which one
 * wins would be a guess. Neither (or `[]`) means no endpoints: partners read events through the pull API.
 *
 * The variables are named in config/env.ts (PartnerEventEndpointVariablesSchema); the check lives
 * here, next to the catalogue it checks subscriptions against, because config/ imports nothing of ours.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { PartnerEventEndpointVariablesSchema } from '../config/env';
import type { PartnerEndpoint } from './endpoint-types';
import { parsePartnerEndpoints, privateEndpointProblem } from './endpoints';

const endpointsText = z.string().transform((text, context): PartnerEndpoint[] => {
  const result = parsePartnerEndpoints(text);
  if (result.ok) return result.endpoints;
  context.addIssue({ code: 'custom', message: result.problem });
  return z.NEVER;
});

const endpointsFile = z.string().transform((path, context): PartnerEndpoint[] => {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    context.addIssue({ code: 'custom', message: `cannot read ${path} (${code})` });
    return z.NEVER;
  }
  const result = parsePartnerEndpoints(text);
  if (result.ok) return result.endpoints;
  context.addIssue({ code: 'custom', message: `${path}: ${result.problem}` });
  return z.NEVER;
});

export const PartnerEventEndpointsEnvSchema = PartnerEventEndpointVariablesSchema.extend({
  PARTNER_EVENT_ENDPOINTS: endpointsText.optional(),
  PARTNER_EVENT_ENDPOINTS_FILE: endpointsFile.optional(),
}).superRefine((value, context) => checkEndpointVariables(value, context));

/**
 * The checks across the variables: not both set, and no private host without the opt-in. A process
 * that parses these variables inside a larger schema (built from this one's `.shape`, which drops
 * refinements) adds them back with `.superRefine(checkEndpointVariables)`.
 */
export function checkEndpointVariables(
  value: {
    PARTNER_EVENT_ENDPOINTS?: PartnerEndpoint[] | undefined;
    PARTNER_EVENT_ENDPOINTS_FILE?: PartnerEndpoint[] | undefined;
    PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS: boolean;
  },
  context: z.RefinementCtx,
): void {
  if (value.PARTNER_EVENT_ENDPOINTS !== undefined && value.PARTNER_EVENT_ENDPOINTS_FILE !== undefined) {
    context.addIssue({
      code: 'custom',
      path: ['PARTNER_EVENT_ENDPOINTS_FILE'],
      message: 'set PARTNER_EVENT_ENDPOINTS or PARTNER_EVENT_ENDPOINTS_FILE, not both',
    });
  }
  const configured = value.PARTNER_EVENT_ENDPOINTS ?? value.PARTNER_EVENT_ENDPOINTS_FILE;
  const inward =
    value.PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS || configured === undefined
      ? undefined
      : privateEndpointProblem(configured);
  if (inward)
    context.addIssue({
      code: 'custom',
      path: [value.PARTNER_EVENT_ENDPOINTS !== undefined ? 'PARTNER_EVENT_ENDPOINTS' : 'PARTNER_EVENT_ENDPOINTS_FILE'],
      message: inward,
    });
}

/**
 * The configured partner endpoints, from whichever variable holds them; none when neither is set.
 * Checked again here for private hosts, since processes that extend the schema's shape drop its
 * refinements: one naming a private, loopback or link-local host stops the start without the opt-in.
 */
export function partnerEndpointsFromEnv(config: z.output<typeof PartnerEventEndpointsEnvSchema>): PartnerEndpoint[] {
  const endpoints = config.PARTNER_EVENT_ENDPOINTS ?? config.PARTNER_EVENT_ENDPOINTS_FILE ?? [];
  const inward = config.PARTNER_EVENTS_ALLOW_PRIVATE_ENDPOINTS ? undefined : privateEndpointProblem(endpoints);
  if (inward) throw new Error(`partner event endpoints: ${inward}`);
  return endpoints;
}
