/**
 * docs/reference/environment.md, generated from the zod schemas of config/env.ts (which variables
 * exist, their defaults, which are required) and config/env-descriptions.ts (what each is for, who
 * reads it). test/docs/reference-pages.test.ts fails while the page is stale.
 */
import type { z } from 'zod';
import { ENV_DESCRIPTIONS, type EnvVariable } from '../../config/env-descriptions';
import { ALL_ENV_SCHEMAS } from '../../config/env';
import { ASSUMPTION_FILE_KEYS } from '../../ramp/assumptions-file';
import { DEPOSIT_TIMING_DEFAULTS } from '../../workflows/common/timings';
import { generatedNotice, markdownCell } from './markdown';

/** Variables whose unset value is a default of the workflow code rather than of the schema. */
const WORKFLOW_CODE_DEFAULTS: Partial<Record<EnvVariable, number>> = {
  DEPOSIT_POLL_INTERVAL_SECONDS: DEPOSIT_TIMING_DEFAULTS.pollIntervalSeconds,
  DEPOSIT_STEP_DEADLINE_SECONDS: DEPOSIT_TIMING_DEFAULTS.stepDeadlineSeconds,
  DEPOSIT_POLL_BACKOFF_CAP_SECONDS: DEPOSIT_TIMING_DEFAULTS.pollBackoffCapSeconds,
};

interface SchemaDefinition {
  type: string;
  defaultValue?: unknown;
  in?: z.ZodType;
  innerType?: z.ZodType;
}

/** The default a variable's schema fills in, as written in the schema (before any transform). */
export function schemaDefault(schema: z.ZodType): unknown {
  let at: z.ZodType | undefined = schema;
  while (at) {
    const definition: SchemaDefinition = (at as unknown as { _zod: { def: SchemaDefinition } })._zod.def;
    if (definition.type === 'default') return definition.defaultValue;
    at = definition.type === 'pipe' ? definition.in : undefined;
  }
  return undefined;
}

/** Every variable with its schema, in the order of ALL_ENV_SCHEMAS; a variable two schemas share is listed once. */
export function environmentVariables(): { name: EnvVariable; schema: z.ZodType }[] {
  const seen = new Map<string, z.ZodType>();
  for (const group of ALL_ENV_SCHEMAS) {
    for (const [name, schema] of Object.entries(group.shape as Record<string, z.ZodType>))
      if (!seen.has(name)) seen.set(name, schema);
  }
  return [...seen].map(([name, schema]) => ({ name: name as EnvVariable, schema }));
}

function defaultCell(name: EnvVariable, schema: z.ZodType): string {
  const described = ENV_DESCRIPTIONS[name];
  if (!described) throw new Error(`${name} has no description in config/env-descriptions.ts`);
  const value = schemaDefault(schema);
  if (value !== undefined && value !== '') return `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;
  const fromCode = WORKFLOW_CODE_DEFAULTS[name];
  if (fromCode !== undefined) return `\`${fromCode}\` (the workflow code's, \`workflows/common/timings.ts\`)`;
  if (described.unset) return described.unset;
  return schema.safeParse(undefined).success ? '—' : '**required**';
}

export function environmentReferenceMarkdown(): string {
  const variables = environmentVariables();
  const documented = new Set<string>(variables.map(({ name }) => name));
  const stray = Object.keys(ENV_DESCRIPTIONS).filter((name) => !documented.has(name));
  if (stray.length > 0)
    throw new Error(`config/env-descriptions.ts describes variables no schema reads: ${stray.join(', ')}`);
  return [
    '# Environment reference',
    '',
    generatedNotice('the zod schemas of `config/env.ts` and the descriptions in `config/env-descriptions.ts`'),
    '',
    'Every rampflow process reads only the environment, through `config/env.ts`. A bad value stops it at',
    'start with one line per variable, never echoing a secret; an empty variable counts as unset.',
    'A process reads only the groups it needs, so a variable is required only by the processes that read it.',
    'Each variable has an anchor of its name in lower case (`environment.md#webhook_port`), for the pages that link here.',
    '',
    '| variable | default | read by | what it does |',
    '| --- | --- | --- | --- |',
    ...variables.map(({ name, schema }) => {
      const described = ENV_DESCRIPTIONS[name];
      // An explicit anchor per variable: the pages that explain a process link its variables here rather than table them again.
      return `| <a id="${variableAnchor(name)}"></a>\`${name}\` | ${markdownCell(defaultCell(name, schema))} | ${markdownCell(described.readBy)} | ${markdownCell(described.description)} |`;
    }),
    '',
    '## RAMP_ASSUMPTIONS_FILE keys',
    '',
    'The file is one JSON object; every key is optional and a key not listed here is refused. Generated from',
    '`ramp/assumptions-file.ts`, where the schema that checks the file is.',
    '',
    '| key | default | what it overrides |',
    '| --- | --- | --- |',
    ...Object.entries(ASSUMPTION_FILE_KEYS).map(
      ([key, { description, defaultValue }]) =>
        `| \`${key}\` | ${markdownCell(defaultValue)} | ${markdownCell(description)} |`,
    ),
    '',
    'Compose only (not read by rampflow): `POSTGRES_USER` and `POSTGRES_PASSWORD` (`temporal`/`temporal`);',
    '`TEMPORAL_HISTORY_SHARDS` (4, fixed once the databases exist); `TEMPORAL_PORT`, `TEMPORAL_UI_PORT`,',
    '`WEBHOOK_PUBLISHED_PORT`, `PARTNER_API_PUBLISHED_PORT`, `SANDBOX_PORT`, the published host ports',
    '([docker compose](../deploying/compose.md)).',
    '',
  ].join('\n');
}

/** The anchor of a variable's row in docs/reference/environment.md: its name in lower case. */
function variableAnchor(name: string): string {
  return name.toLowerCase();
}
